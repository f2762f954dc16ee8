// gsa fused_recurrent's workspace: every region the size its tensor needs, in order and disjoint, each
// starting 16 bytes aligned (the scans stage the logits, p and dz rows with 16-byte cp.async copies), for
// the shapes the variant takes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/gsa/fused_workspace.h"
#include "tests/kernels/workspace_regions.h"

namespace flabench {
namespace {

TEST(GsaFusedWorkspace, RegionsHoldTheirTensorsInOrderAndAligned) {
  for (std::int64_t T : {1, 17, 1000})
    for (std::int64_t K : {32, 128})
      for (std::int64_t V : {16, 64})
        for (std::int64_t M : {32, 64, 128})
          for (std::int64_t G : {1, 4}) {
            Problem p{2, T, 3, K, V, DType::bf16};
            p.M = M, p.G = G;
            const gsa::FusedWorkspace w(p);
            const std::size_t rows = 2 * T * 3 * G * M, chunks = (T + 15) / 16, heads = 6;
            const std::vector<testing::Region> regions = {
                {w.logits, rows},
                {w.key_checkpoints, heads * chunks * K * M},
                {w.value_checkpoints, heads * chunks * M * V},
                {w.weights, rows},
                {w.logit_grads, rows},
                {w.slot_sums, std::size_t(2 * 2 * T * 3 * M)},
                // two [B, T, H, M] buffers (dp, dz), two [B*H, M, K] state gradients
                {w.gla_backward, std::size_t(2 * 2 * T * 3 * M + 2 * heads * M * K)},
                // the backward's segments: 15 gradients of Hv [B*H, M, V] and of Hk^T [B*H, M, K]
                {w.gla_handoffs, std::size_t(15 * heads * M * (V + K))}};
            const std::size_t end = testing::expect_in_order(regions, 4);  // floats: 16 bytes
            EXPECT_EQ(w.total, end);
            EXPECT_EQ(w.bytes(), end * sizeof(float));
          }
}

}  // namespace
}  // namespace flabench
