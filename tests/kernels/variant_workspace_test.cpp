// Every CUDA variant sizes its workspace by mode: a forward alone never takes more than a fwd+bwd, and the
// variants whose workspace only their backward reads (the recurrences' checkpoints) take none for it; rwkv7
// chunk leaves out its backwards' regions from a forward alone, and a fwd+bwd takes the regions of the
// backward the variant picks for the device and shape (its chunked one's 2 GB at the largest peer shape only
// where that one runs); rwkv7 fused_recurrent's fwd+bwd takes that chunked backward's regions, in chunks of
// 32, where its backward runs in chunk form, and gla's, simple_gla's and rwkv6's the chunk variant's, in
// chunks of 64, where theirs does.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/fused_recurrent/workspace.h"
#include "kernels/gla/gla.h"
#include "kernels/registry.h"
#include "kernels/rwkv6/rwkv6.h"
#include "kernels/rwkv7/backward_in_chunks.h"
#include "kernels/rwkv7/chunk_workspace.h"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {
namespace {

constexpr DeviceLimits kHopper{227 * 1024, 90, 132};
constexpr DeviceLimits kAda{99 * 1024, 89, 60};  // RTX 4070 Ti

// p as rwkv7 fused_recurrent's chunk-form backward takes it
Problem in_backward_chunks(Problem p) {
  p.chunk_size = rwkv7::kBackwardChunk;
  return p;
}

std::size_t bytes(const std::string& op, const std::string& variant, const Problem& p, Mode mode,
                  const DeviceLimits& device = kHopper) {
  return product_registry().find_variant(op, variant)->workspace_bytes(p, mode, device);
}

TEST(VariantWorkspace, AForwardAloneNeverTakesMoreThanAForwardAndBackward) {
  for (const OpSpec* op : product_registry().ops())
    for (const Variant* variant : product_registry().variants_of(op->name)) {
      if (variant->backend != Backend::cuda || !variant->workspace_bytes) continue;
      for (int C : {0, 16, 32, 64}) {
        Problem p{2, 1000, 4, 64, 64, DType::bf16, C};
        if (op->name == "gsa") p.M = 64;
        if (why_unsupported(*variant, p, Mode::fwdbwd, kHopper)) continue;
        SCOPED_TRACE(op->name + "/" + variant->name + " C" + std::to_string(C));
        EXPECT_LE(variant->workspace_bytes(p, Mode::fwd, kHopper),
                  variant->workspace_bytes(p, Mode::fwdbwd, kHopper));
        EXPECT_GT(variant->workspace_bytes(p, Mode::fwdbwd, kHopper), 0u);
      }
    }
}

TEST(VariantWorkspace, RecurrencesKeepCheckpointsForABackwardOnly) {
  const Problem p{2, 1000, 4, 64, 64, DType::bf16};
  for (const std::string op : {"rwkv6", "rwkv7", "gla", "simple_gla"})
    for (const std::string variant : {"naive", "fused_recurrent"}) {
      SCOPED_TRACE(op + "/" + variant);
      EXPECT_EQ(bytes(op, variant, p, Mode::fwd), 0u);
      EXPECT_GT(bytes(op, variant, p, Mode::fwdbwd), 0u);
    }
  Problem gsa = p;
  gsa.M = 64;
  EXPECT_EQ(bytes("gsa", "naive", gsa, Mode::fwd), 0u);
}

TEST(VariantWorkspace, Rwkv7ChunkLeavesEitherBackwardOutOfAForward) {
  const Problem p{2, 16384, 16, 128, 128, DType::bf16, 32};
  const rwkv7::ChunkWorkspace w(p, false);
  const fused::WorkspaceLayout<Rwkv7Form> fused(p);
  EXPECT_EQ(bytes("rwkv7", "chunk", p, Mode::fwd), w.x * sizeof(float));
  EXPECT_GT((w.total - w.x) * sizeof(float), std::size_t(2) << 30);  // the chunked backward's
  // fused_recurrent's dS^T b per token and its segments' handoffs (268 MB here): a backward's only
  EXPECT_GE(w.fused_total - w.forward_total(), (fused.total - fused.dsa) / 4 * 4);
}

TEST(VariantWorkspace, Rwkv7ChunkTakesTheRegionsOfTheBackwardThatRuns) {
  // 16 heads of 64 value columns: 64 fused backward blocks, fewer than a Hopper's 132 SMs, so the chunked
  // backward runs there in chunks of 16; on an RTX 4070 Ti's 60 SMs the fused one. Many heads in bf16: the
  // chunked one (its reverse scan on the tensor cores) in chunks of 32, and at K = 128 in chunks of 64 too;
  // the fused one at K = 64 in chunks of 16 and 64, and for fp16.
  const Problem few_heads{1, 24576, 16, 64, 64, DType::bf16, 16},
      many{2, 16384, 16, 128, 128, DType::bf16, 32}, many_c64{2, 16384, 16, 128, 128, DType::bf16, 64},
      many_d64{4, 4096, 16, 64, 64, DType::bf16, 32}, many_fp16{2, 16384, 16, 128, 128, DType::fp16, 32},
      many_d64_c16{4, 4096, 16, 64, 64, DType::bf16, 16}, many_d64_c64{4, 4096, 16, 64, 64, DType::bf16, 64};
  // (bf16 with the reverse scan on the tensor cores: no fp32 copies of the forward's planes)
  const rwkv7::ChunkWorkspace a(few_heads, false), b(many, false);
  EXPECT_EQ(bytes("rwkv7", "chunk", few_heads, Mode::fwdbwd, kHopper), a.total * sizeof(float));
  EXPECT_EQ(bytes("rwkv7", "chunk", few_heads, Mode::fwdbwd, kAda), a.fused_total * sizeof(float));
  EXPECT_GT((b.total - b.fused_total) * sizeof(float), std::size_t(1) << 30);  // the chunked one's
  for (const Problem& chunked : {many, many_c64, many_d64})
    EXPECT_EQ(bytes("rwkv7", "chunk", chunked, Mode::fwdbwd, kHopper),
              rwkv7::ChunkWorkspace(chunked, false).total * sizeof(float));
  for (const Problem& fused : {many_fp16, many_d64_c16, many_d64_c64})
    EXPECT_EQ(bytes("rwkv7", "chunk", fused, Mode::fwdbwd, kHopper),
              rwkv7::ChunkWorkspace(fused, false).fused_total * sizeof(float));
}

TEST(VariantWorkspace, Rwkv7FusedRecurrentTakesTheChunkedBackwardsRegionsWhereItsBackwardRunsInChunks) {
  // bf16 wherever the chunk variant's chunked backward runs in chunks of 32 (every peer shape on a Hopper);
  // fp16 only where heads are few (its reverse scan has no tensor-core form); fp32 never; nor K = 256, which
  // the chunk variant does not take.
  const auto problem = [](std::int64_t B, std::int64_t T, std::int64_t D, DType dtype) {
    return Problem{B, T, 16, D, D, dtype};
  };
  const auto scan_bytes = [](const Problem& p) {
    return fused::WorkspaceLayout<Rwkv7Form>(p).total * sizeof(float);
  };
  const std::vector<Problem> chunked = {problem(4, 4096, 64, DType::bf16), problem(1, 24576, 64, DType::bf16),
                                        problem(2, 16384, 128, DType::bf16),
                                        problem(4, 4096, 128, DType::bf16),
                                        problem(1, 24576, 64, DType::fp16)};
  for (const Problem& p : chunked) {
    SCOPED_TRACE(std::to_string(p.T) + " " + std::string(dtype_name(p.dtype)));
    EXPECT_TRUE(rwkv7::backward_in_chunks(p, kHopper));
    const rwkv7::ChunkWorkspace w(in_backward_chunks(p), false);
    EXPECT_EQ(bytes("rwkv7", "fused_recurrent", p, Mode::fwdbwd), w.total * sizeof(float));
    EXPECT_EQ(rwkv7::scan_workspace_offset(p, kHopper), w.fused_base * sizeof(float));
    EXPECT_EQ(bytes("rwkv7", "fused_recurrent", p, Mode::fwd), 0u);
  }
  const std::vector<Problem> scanned = {problem(4, 4096, 64, DType::fp16), problem(1, 24576, 64, DType::fp32),
                                        problem(2, 16384, 128, DType::fp32),
                                        problem(1, 1000, 256, DType::bf16)};
  for (const Problem& p : scanned) {
    SCOPED_TRACE(std::to_string(p.T) + " " + std::string(dtype_name(p.dtype)));
    EXPECT_FALSE(rwkv7::backward_in_chunks(p, kHopper));
    EXPECT_EQ(bytes("rwkv7", "fused_recurrent", p, Mode::fwdbwd), scan_bytes(p));
  }
}

TEST(VariantWorkspace, Rwkv7FusedRecurrentRunsInChunksExactlyWhereTheChunkVariantsChunkedBackwardDoes) {
  // On either device, for 16-bit inputs, fused_recurrent's fwd+bwd takes the chunk form where rwkv7 chunk at
  // C = 32 runs its chunked backward (the same workspace), and the scan's own backward elsewhere.
  for (const DeviceLimits& device : {kHopper, kAda})
    for (const DType dtype : {DType::bf16, DType::fp16})
      for (const Problem& shape : {Problem{8, 1024, 8, 64, 64}, Problem{1, 24576, 16, 64, 64},
                                   Problem{4, 4096, 16, 128, 128}, Problem{1, 100, 2, 64, 16}}) {
        Problem p = shape;
        p.dtype = dtype;
        const Problem c32 = in_backward_chunks(p);
        SCOPED_TRACE(std::to_string(device.multiprocessors) + " SMs " + std::string(dtype_name(dtype)) +
                     " T" + std::to_string(p.T));
        const bool chunked = bytes("rwkv7", "chunk", c32, Mode::fwdbwd, device) >
                             rwkv7::ChunkWorkspace(c32, false).fused_total * sizeof(float);
        EXPECT_EQ(rwkv7::backward_in_chunks(p, device), chunked);
        EXPECT_EQ(bytes("rwkv7", "fused_recurrent", p, Mode::fwdbwd, device) ==
                      bytes("rwkv7", "chunk", c32, Mode::fwdbwd, device),
                  chunked);
      }
}

TEST(VariantWorkspace, GatedFusedRecurrentTakesTheChunkVariantsWorkspaceWhereItsBackwardRunsInChunks) {
  // Wherever the chunk variant runs a fwd+bwd in chunks of 64 (every peer shape on a Hopper, in every dtype;
  // on an RTX 4070 Ti's 99 KiB not in fp32 at D = 64, whose blocks take 106 KiB): its workspace (the scan's
  // forward saves the states before its chunks at its head), else the scan's own.
  const auto scan_bytes = [](const std::string& op, const Problem& p) {
    if (op == "gla") return fused::WorkspaceLayout<GlaForm>(p).total * sizeof(float);
    if (op == "simple_gla") return fused::WorkspaceLayout<SimpleGlaForm>(p).total * sizeof(float);
    return fused::WorkspaceLayout<Rwkv6Form>(p).total * sizeof(float);
  };
  int chunked_cases = 0, scanned_cases = 0;
  for (const std::string op : {"gla", "simple_gla", "rwkv6"})
    for (const DeviceLimits& device : {kHopper, kAda})
      for (const DType dtype : kAllDTypes)
        for (const Problem& shape :
             {Problem{8, 1024, 8, 64, 64}, Problem{1, 24576, 16, 64, 64}, Problem{4, 4096, 16, 128, 128},
              Problem{1, 100, 2, 64, 16}, Problem{1, 1000, 2, 256, 256}}) {
          Problem p = shape;
          p.dtype = dtype;
          Problem c64 = p;
          c64.chunk_size = 64;
          SCOPED_TRACE(op + " " + std::to_string(device.multiprocessors) + " SMs " +
                       std::string(dtype_name(dtype)) + " K" + std::to_string(p.K));
          const bool chunked =
              !why_unsupported(*product_registry().find_variant(op, "chunk"), c64, Mode::fwdbwd, device);
          (chunked ? chunked_cases : scanned_cases)++;
          EXPECT_EQ(bytes(op, "fused_recurrent", p, Mode::fwdbwd, device),
                    chunked ? chunk::workspace_bytes(c64) : scan_bytes(op, p));
          EXPECT_EQ(bytes(op, "fused_recurrent", p, Mode::fwd, device), 0u);
        }
  EXPECT_GT(chunked_cases, 0);
  EXPECT_GT(scanned_cases, 0);
}

}  // namespace
}  // namespace flabench
