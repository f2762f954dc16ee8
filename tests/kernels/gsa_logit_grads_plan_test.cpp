// The blocks an SM gsa chunk's logit gradients are built and launched for (kernels/gsa/logit_grads_plan.h):
// four only for 16-bit inputs at 4 tiles of logits a warp where four blocks' shared memory fit the SM, the
// Hopper's 228 KiB at chunks of 32 with M = K = V = 64 (the fused fwd+bwd's backward at the peer shapes).
#include <gtest/gtest.h>

#include <cstddef>

#include "kernels/gsa/logit_grads_plan.h"

namespace flabench::gsa {
namespace {

// The opt-in maxima a block (an SM's room less the 1 KiB reserved a block)
constexpr DeviceLimits kHopper{227 * 1024, 90, 132}, kA100{163 * 1024, 80, 108}, kAda{99 * 1024, 89, 60};
// A block's bytes at chunks of 32, M = 64, 16-bit inputs (ncu reads 49.41 KB for K = V = 64), and with p
// staged apart as before version 55 (57.60 KB)
constexpr std::size_t kD64 = 49408, kD64WithP = 57600;

TEST(LogitGradsPlan, FourBlocksFitAHopperSmAtHeadDim64Only) {
  EXPECT_TRUE(four_logit_grads_blocks_fit(kD64, kHopper));
  EXPECT_FALSE(four_logit_grads_blocks_fit(kD64WithP, kHopper));
  EXPECT_TRUE(four_logit_grads_blocks_fit(56 * 1024, kHopper));  // 4 x 57 KiB = 228 KiB: the SM's room
  EXPECT_FALSE(four_logit_grads_blocks_fit(56 * 1024 + 16, kHopper));
  EXPECT_FALSE(four_logit_grads_blocks_fit(kD64, kA100));
  EXPECT_FALSE(four_logit_grads_blocks_fit(kD64, kAda));
}

TEST(LogitGradsPlan, FourBlocksOnlyFor16BitInputsAtFourTiles) {
  EXPECT_EQ(logit_grads_blocks(4, 2, true), 4);
  EXPECT_EQ(logit_grads_blocks(4, 2, false), 3);
  EXPECT_EQ(logit_grads_blocks(4, 4, true), 3);  // fp32's x and y in fp32: never four
  EXPECT_EQ(logit_grads_blocks(8, 2, true), 2);
  EXPECT_EQ(logit_grads_blocks(8, 4, false), 2);
}

}  // namespace
}  // namespace flabench::gsa
