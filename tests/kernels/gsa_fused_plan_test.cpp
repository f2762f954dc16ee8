// gsa fused_recurrent's plans of its own forms on the CPU: limits() judges a shape by its plans on one SM
// (the widest blocks); at every SM count a GPU may have, every kernel of a shape it lets through to these
// forms (not to gla's kernels: one query head a state pair) must still cover its columns in whole blocks and
// stay within its launch bound and the device's shared memory.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernels/gsa/fused_plan.h"
#include "kernels/gsa/gsa.h"
#include "kernels/registry.h"
#include "suites/battery.h"

namespace flabench {
namespace {

using namespace gsa::split;

constexpr DeviceLimits kHopper{227 * 1024, 90};
constexpr DeviceLimits kAda{99 * 1024, 89};

// Where `plan` splits `columns` columns of `length` elements each.
void expect_whole(const KernelPlan& plan, int columns, int length, int bound, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(plan.split * plan.columns, columns) << "the blocks cover every column once";
  EXPECT_EQ(length % plan.rows, 0) << "a column is whole threads";
  EXPECT_GE(plan.threads, plan.columns * (length / plan.rows));
  EXPECT_EQ(plan.threads % 32, 0);
  EXPECT_LE(plan.threads, bound) << "the kernel's launch bound";
}

TEST(GsaFusedPlan, EveryShapeLimitsLetsThroughFitsAtEverySmCount) {
  const Variant& variant = *product_registry().find_variant("gsa", "fused_recurrent");
  int checked = 0;
  for (const DeviceLimits& device : {kHopper, kAda})
    for (DType dtype : {DType::bf16, DType::fp32})
      for (int K : {32, 64, 128})
        for (int V : {16, 64, 128, 256})
          for (int M : {32, 64, 128})
            for (int G : {1, 4})
              for (auto [B, H] : {std::pair{1, 1}, {1, 16}, {4, 16}, {8, 32}}) {
                Problem p{B, 4096, H, K, V, dtype};
                p.M = M, p.G = G;
                if (why_unsupported(variant, p, Mode::fwdbwd, device)) continue;
                if (gsa_fused_takes_gla_passes(p, Mode::fwdbwd, device)) continue;  // not these plans
                ++checked;
                for (int sms : {1, 46, 60, 108, 132}) {
                  const std::string at = shape_label(p) + " " + std::string(dtype_name(dtype)) + " on " +
                                         std::to_string(sms) + " SMs";
                  for (const int X : {K, V}) {  // the forward (X = K, V) and the backward's dp (V) and dq (K)
                    const KernelPlan scan = scan_plan(p, X, sms), mix = mix_plan(p, X, sms);
                    expect_whole(scan, M, X, kMaxThreads, "slot scan, " + at);
                    expect_whole(mix, X, M, kMaxThreads, "slot mix, " + at);
                    EXPECT_LE(scan_shared_bytes(p, X, scan), device.shared_memory_per_block) << at;
                    EXPECT_LE(mix_shared_bytes(p, mix), device.shared_memory_per_block) << at;
                    const KernelPlan mix_grad = mix_grad_plan(p, X, sms),
                                     scan_grad = scan_grad_plan(p, X, sms);
                    expect_whole(mix_grad, X, M, kMaxThreads, "slot-mix gradient, " + at);
                    expect_whole(scan_grad, M, X, kScanGradThreads, "slot-scan gradient, " + at);
                    EXPECT_LE(scan_grad.columns * X, kScanGradElements) << at;
                    EXPECT_LE(mix_grad_shared_bytes(p, X, mix_grad), device.shared_memory_per_block) << at;
                    EXPECT_LE(scan_grad_shared_bytes(p, X, scan_grad), device.shared_memory_per_block) << at;
                    if (scan_grad_whole_chunks(p, scan_grad, sms)) {
                      EXPECT_LE(B * H * scan_grad.split, sms) << "one block per SM: " << at;
                    }
                  }
                }
              }
  EXPECT_GT(checked, 100) << "the grid reaches the shapes the variant runs on these forms";
}

TEST(GsaFusedPlan, TheSlotScanGradientTakesWholeChunksOnlyWhereItsBlocksFitTheSms) {
  Problem few{1, 24576, 16, 64, 64, DType::bf16};
  few.M = 64;
  const KernelPlan at_few = scan_grad_plan(few, 64, 132);
  EXPECT_EQ(at_few.split, 8);  // 16 heads x 8 blocks of 8 slots: 128 blocks, one wave
  EXPECT_TRUE(scan_grad_whole_chunks(few, at_few, 132));
  Problem many = few;
  many.B = 4;
  const KernelPlan at_many = scan_grad_plan(many, 64, 132);
  EXPECT_EQ(at_many.split, 4);  // 64 heads x 4 blocks of 16 slots (1024 elements each): two waves of one
  EXPECT_FALSE(scan_grad_whole_chunks(many, at_many, 132));
}

// A fwd+bwd on the gla passes takes the chunk form wherever that form's blocks fit, in every dtype (since
// version 61 fp32 too: the faster there as well); elsewhere only fp32 at M = 128 remains, which takes the
// scans' backward, whose query gradients are built for that slot count alone (query_grads.cuh).
TEST(GsaFusedPlan, OnlyFp32AtItsSlotCountTakesTheScansBackward) {
  int scans = 0;
  for (const DeviceLimits& device : {kHopper, DeviceLimits{163 * 1024, 80}, kAda})
    for (DType dtype : {DType::bf16, DType::fp16, DType::fp32})
      for (int K : {16, 32, 64, 128, 256})
        for (int V : {16, 32, 64, 128, 256})
          for (int M : {32, 64, 128}) {
            Problem p{64, 4096, 16, K, V, dtype};  // many heads: where the scans fill the GPU
            p.M = M;
            if (!gsa_fused_takes_gla_passes(p, Mode::fwdbwd, device) ||
                gsa_fused_backward_in_chunks(p, device))
              continue;
            ++scans;
            EXPECT_EQ(dtype, DType::fp32) << "K=" << K << " V=" << V << " M=" << M;
            EXPECT_EQ(M, gsa::kScanBackwardSlots) << "K=" << K << " V=" << V << " " << dtype_name(dtype);
          }
  EXPECT_GT(scans, 0) << "the scans' backward still serves the shapes the chunk form does not take";
}

// The battery reaches both backwards: the chunk form at every slot count in every dtype, the scans' (fp32 at
// M = 128, on the rooms it plans for smaller GPUs).
TEST(GsaFusedPlan, TheBatteryReachesBothBackwards) {
  const BatterySpec spec{"^shapes/gsa/fused_recurrent/fwdbwd/", Backend::cuda, kHopper, false};
  std::set<std::string> in_chunks, as_scans;
  for (const BatteryCase& c : battery_cases(product_registry(), spec)) {
    const DeviceLimits device = planned_limits(c, kHopper);
    if (c.skip_reason || !gsa_fused_takes_gla_passes(c.problem, c.mode, device)) continue;
    const std::string at = std::string(dtype_name(c.problem.dtype)) + " M" + std::to_string(c.problem.M);
    (gsa_fused_backward_in_chunks(c.problem, device) ? in_chunks : as_scans).insert(at);
  }
  EXPECT_EQ(in_chunks, (std::set<std::string>{"bf16 M32", "bf16 M64", "bf16 M128", "fp16 M32", "fp16 M64",
                                              "fp16 M128", "fp32 M32", "fp32 M64", "fp32 M128"}));
  EXPECT_EQ(as_scans, (std::set<std::string>{"fp32 M128"}));
}

// A 16-bit fwd+bwd never runs the gla passes' own backward (version 48): with one query head a state pair it
// takes the chunk form, or gsa's own scans (split form: p and dz in fp32) where that form does not fit. On
// the rooms the battery plans for (a Hopper's, 163 and 99 KiB) every such case the fused variant runs takes
// the chunk form since version 55 (at M = 128 on 99 KiB among them); the split form's scans are reached in
// both 16-bit dtypes with grouped queries.
TEST(GsaFusedPlan, SixteenBitFwdbwdTakesTheChunkFormWithOneQueryHeadAndTheScansWithGroups) {
  const BatterySpec spec{"^shapes/gsa/fused_recurrent/fwdbwd/", Backend::cuda, kHopper, false};
  std::set<std::string> grouped_scans;
  int one_head_capped = 0;
  for (const BatteryCase& c : battery_cases(product_registry(), spec)) {
    if (c.skip_reason || c.problem.dtype == DType::fp32) continue;
    const bool gla_passes = gsa_fused_takes_gla_passes(c.problem, c.mode, planned_limits(c, kHopper));
    if (c.problem.G == 1) {
      EXPECT_TRUE(gla_passes) << c.name;
      one_head_capped += c.shared_memory_cap && c.problem.M == 128;
    } else if (!gla_passes) {
      grouped_scans.insert(std::string(dtype_name(c.problem.dtype)));
    }
  }
  EXPECT_EQ(one_head_capped, 4);  // M = 128 at 99 and 163 KiB, bf16 and fp16
  EXPECT_EQ(grouped_scans, (std::set<std::string>{"bf16", "fp16"}));
}

}  // namespace
}  // namespace flabench
