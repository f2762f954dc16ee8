// gla's and rwkv6's state and output pass over prepared operands on Hopper
// (kernels/common/chunk/prepared_fused_forward.cu): its shared-memory plan (every tile on the swizzle's
// 1024-byte pattern, no overlaps, within an H100's 227 KiB), where it runs, and that the GPU battery reaches
// each of its instances over several chunks (gla/chunk and rwkv6/chunk bf16 at C = 64, forward alone at K =
// 128, before a backward at K = 64 and 128).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/chunk/prepared_fused_forward.h"
#include "kernels/common/chunk/prepared_fused_layout.h"
#include "kernels/gla/gla.h"
#include "kernels/rwkv6/rwkv6.h"
#include "suites/battery.h"
#include "tests/kernels/workspace_regions.h"
#include "tests/test_support.h"

namespace flabench::chunk {
namespace {

constexpr std::size_t kH100SharedBytes = 227 * 1024;

TEST(PreparedFusedLayout, TilesStartOnTheSwizzlePatternAndDoNotOverlap) {
  for (int K : {64, 128})
    for (int Vs : {32, 64}) {
      const PreparedFusedLayout L{K, Vs};
      std::vector<testing::Region> regions;
      for (int s = 0; s < kFusedStages; ++s) {
        regions.push_back({L.queries(s), L.token_tile(K)});
        for (int part = 0; part < 2; ++part) regions.push_back({L.keys(s, part), L.token_tile(K)});
        regions.push_back({L.values(s), L.token_tile(Vs)});
        regions.push_back({L.whole(s), unsigned(K) * sizeof(float)});
      }
      for (int part = 0; part < 2; ++part) regions.push_back({L.state(part), L.state_tile()});
      std::sort(regions.begin(), regions.end(), [](auto x, auto y) { return x.at < y.at; });
      SCOPED_TRACE("K " + std::to_string(K) + " Vs " + std::to_string(Vs));
      EXPECT_LE(testing::expect_in_order(regions, wgmma::kGroupBytes) + wgmma::kGroupBytes, L.bytes());
      EXPECT_LE(L.bytes(), kH100SharedBytes);
      EXPECT_EQ(L.state_tile(), unsigned(K) * wgmma::kRowBytes);  // K rows of one 64-column panel
    }
}

TEST(PreparedFusedLayout, RunsOnlyWhereItsKernelApplies) {
  const DeviceLimits h100{kH100SharedBytes, 90, 132};
  Problem p = testing::small_problem(testing::op_named("gla"), 4, 4096, 16, 128, 128, DType::bf16);
  p.chunk_size = 64;
  if (!prepared_fused_forward_runs(GlaForm::value, p, h100)) GTEST_SKIP() << "this build has no sm_90a code";
  EXPECT_TRUE(prepared_fused_forward_runs(Rwkv6Form::value, p, h100));
  RecurrenceForm scalar = GlaForm::value;
  scalar.gate = GateKind::per_head;
  EXPECT_FALSE(prepared_fused_forward_runs(scalar, p, h100)) << "simple_gla has its own";
  RecurrenceForm exclusive_only = GlaForm::value;
  exclusive_only.output_before_update = true;
  EXPECT_FALSE(prepared_fused_forward_runs(exclusive_only, p, h100)) << "no such op";
  Problem q = p;
  q.K = q.V = 64;
  EXPECT_TRUE(prepared_fused_forward_runs(GlaForm::value, q, h100));
  q.B = 1, q.T = 24576;  // 32 blocks, less than half the GPU: four segments of the sequence
  EXPECT_EQ(fused_forward_segments(q, h100.multiprocessors).count, 4);
  EXPECT_TRUE(prepared_fused_forward_runs(GlaForm::value, q, h100));
  q.T = 15 * kFusedChunk;  // too few chunks for two segments of kMinSegmentChunks
  EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, q, h100)) << "32 blocks, no split";
  for (int C : {16, 32}) {
    q = p;
    q.chunk_size = C;
    EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, q, h100)) << "C " << C;
  }
  for (DType dtype : {DType::fp16, DType::fp32}) {
    q = p;
    q.dtype = dtype;
    EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, q, h100)) << dtype_name(dtype);
  }
  for (int K : {32, 256}) {
    q = p;
    q.K = K;
    EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, q, h100)) << "K " << K;
  }
  q = p;
  q.V = 48;
  EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, q, h100));
  EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, p, DeviceLimits{kH100SharedBytes, 89, 60}));
  EXPECT_FALSE(prepared_fused_forward_runs(GlaForm::value, p, DeviceLimits{99 * 1024, 90, 132}));
}

// On an H100 or H200 (132 SMs) the battery runs each of the kernel's four instances (K 64 and 128, 32 or 64
// values a block) over more than one chunk for gla and rwkv6, where the chunk forward takes it (the forward
// alone and before a backward); and decays steep enough for the scores' element-by-element channels.
TEST(PreparedFusedLayout, TheBatteryRunsEveryInstanceOverSeveralChunks) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  for (const auto& [op, form] :
       {std::pair{std::string("gla"), GlaForm::value}, std::pair{std::string("rwkv6"), Rwkv6Form::value}}) {
    Problem probe = testing::small_problem(testing::op_named(op), 4, 130, 16, 128, 128, DType::bf16);
    probe.chunk_size = kFusedChunk;
    if (!prepared_fused_forward_runs(form, probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
    std::set<std::pair<int, int>> reached;  // (K, Vs) over two chunks or more
    bool steep = false;
    for (const std::string mode : {"fwd", "fwdbwd"})
      for (const BatteryCase& c : battery_cases(
               product_registry(), {"/" + op + "/chunk/" + mode + "/bf16/", Backend::cuda, hopper, false})) {
        const Problem& p = c.problem;
        if (c.skip_reason || c.shared_memory_cap != 0 || !prepared_fused_forward_runs(form, p, hopper))
          continue;
        if (c.decay == DecayScenario::floor) steep = true;  // 16 tokens at the floor: steep channels
        if (p.T > kFusedChunk)
          reached.insert({int(p.K), fused_value_slice(int(p.B * p.H), int(p.V), hopper.multiprocessors)});
      }
    EXPECT_EQ(reached, (std::set<std::pair<int, int>>{{64, 32}, {64, 64}, {128, 32}, {128, 64}})) << op;
    EXPECT_TRUE(steep) << op;
  }
}

// On an H100 or H200 the battery runs gla's and rwkv6's prepared forward over sequence segments at K = 64
// and 128, alone and before a backward, with several runs a segment and a last segment shorter than the
// others.
TEST(PreparedFusedLayout, TheBatteryRunsTheSequenceSegments) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  for (const auto& [op, form] :
       {std::pair{std::string("gla"), GlaForm::value}, std::pair{std::string("rwkv6"), Rwkv6Form::value}}) {
    Problem probe = testing::small_problem(testing::op_named(op), 1, 4100, 16, 64, 64, DType::bf16);
    probe.chunk_size = kFusedChunk;
    if (!prepared_fused_forward_runs(form, probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
    std::set<std::pair<int, Mode>> reached;  // (K, mode) split into segments
    bool several_runs = false, short_last = false;
    for (const BatteryCase& c : battery_cases(
             product_registry(), {"/" + op + "/chunk/(fwd|fwdbwd)/bf16/", Backend::cuda, hopper, false})) {
      const Problem& p = c.problem;
      const FusedSegments plan = fused_forward_segments(p, hopper.multiprocessors);
      if (c.skip_reason || c.shared_memory_cap != 0 || p.chunk_size != kFusedChunk || plan.count == 1 ||
          !prepared_fused_forward_runs(form, p, hopper))
        continue;
      reached.insert({int(p.K), c.mode});
      several_runs |= plan.runs > 1;
      short_last |= int((p.T + kFusedChunk - 1) / kFusedChunk) < plan.count * plan.chunks;
    }
    for (int K : {64, 128})
      for (const Mode mode : {Mode::fwd, Mode::fwdbwd})
        EXPECT_TRUE(reached.count({K, mode})) << op << " K " << K << " " << mode_name(mode);
    EXPECT_TRUE(several_runs) << op;
    EXPECT_TRUE(short_last) << op;
  }
}

}  // namespace
}  // namespace flabench::chunk
