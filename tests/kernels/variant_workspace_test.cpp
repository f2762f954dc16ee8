// Every CUDA variant sizes its workspace by mode: a forward alone never takes more than a fwd+bwd, and the
// variants whose workspace only their backward reads (the recurrences' checkpoints) take none for it; rwkv7
// chunk leaves out its chunked backward's regions (2 GB at the largest peer shape).
#include <gtest/gtest.h>

#include <string>

#include "kernels/registry.h"
#include "kernels/rwkv7/chunk_workspace.h"

namespace flabench {
namespace {

constexpr DeviceLimits kHopper{227 * 1024, 90};

std::size_t bytes(const std::string& op, const std::string& variant, const Problem& p, Mode mode) {
  return product_registry().find_variant(op, variant)->workspace_bytes(p, mode);
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
        EXPECT_LE(variant->workspace_bytes(p, Mode::fwd), variant->workspace_bytes(p, Mode::fwdbwd));
        EXPECT_GT(variant->workspace_bytes(p, Mode::fwdbwd), 0u);
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

TEST(VariantWorkspace, Rwkv7ChunkLeavesTheChunkedBackwardOutOfAForward) {
  const Problem p{2, 16384, 16, 128, 128, DType::bf16, 32};
  const rwkv7::ChunkWorkspace w(p);
  const std::size_t saved = bytes("rwkv7", "chunk", p, Mode::fwdbwd) - bytes("rwkv7", "chunk", p, Mode::fwd);
  EXPECT_EQ(saved, (w.total - w.x) * sizeof(float));
  EXPECT_GT(saved, std::size_t(2) << 30);
}

}  // namespace
}  // namespace flabench
