// gsa chunk's logit gradients as the host plans them (kernels/gsa/logit_grads_plan.h): their block's shared
// memory, and the blocks an SM they are built and launched for: four only for 16-bit inputs at 4 tiles of
// logits a warp where four blocks' shared memory fit the SM, the Hopper's 228 KiB at chunks of 32 with
// M = K = V = 64 (the fused fwd+bwd's backward at the peer shapes).
#include <gtest/gtest.h>

#include <cstddef>

#include "kernels/gsa/logit_grads_plan.h"

namespace flabench::gsa {
namespace {

// The opt-in maxima a block (an SM's room less the 1 KiB reserved a block)
constexpr DeviceLimits kHopper{227 * 1024, 90, 132}, kA100{163 * 1024, 80, 108}, kAda{99 * 1024, 89, 60};

std::size_t bytes(int C, int width, int M, DType dtype, bool grads = true) {
  Problem p{1, 64, 1, width, width, dtype, C};
  p.M = M;
  return logits_shared_bytes(p, grads);
}

// p [C][M] takes the state's room once the state's product has read it (version 55): the logit grads' block
// is the forward logits' block where that room holds p, and grows by what p lacks elsewhere.
TEST(LogitGradsPlan, PTakesTheStatesRoom) {
  EXPECT_EQ(bytes(32, 64, 64, DType::bf16), 49408u);  // ncu read 49.41 KB a block on an H200
  EXPECT_EQ(bytes(32, 64, 64, DType::bf16), bytes(32, 64, 64, DType::bf16, false));
  EXPECT_EQ(bytes(32, 128, 64, DType::bf16), 73984u);    // K = V = 128: 72.25 KiB, three an SM
  EXPECT_EQ(bytes(64, 128, 128, DType::fp32), 223744u);  // 218.5 KiB: fits a Hopper's 227
  // chunks of 64 over a 16-wide state: p's 64 x 16 floats against the state's 16 x 20
  EXPECT_EQ(bytes(64, 16, 16, DType::bf16) - bytes(64, 16, 16, DType::bf16, false), 4u * (64 * 16 - 16 * 20));
}

// fp16's row balance stages the chunk's queries [C][K + 8] in fp16 after p (version 57): within the state's
// room at chunks of 32, its own 8 KiB more at chunks of 64 with M = K = V = 64
TEST(LogitGradsPlan, Fp16QueriesFollowP) {
  EXPECT_EQ(bytes(32, 64, 64, DType::fp16), bytes(32, 64, 64, DType::bf16));
  EXPECT_EQ(bytes(32, 128, 64, DType::fp16), bytes(32, 128, 64, DType::bf16));
  EXPECT_EQ(bytes(64, 64, 64, DType::fp16) - bytes(64, 64, 64, DType::bf16),
            4u * (64 * 64 + 64 * 72 / 2 - 64 * 68));
  EXPECT_EQ(bytes(64, 64, 64, DType::fp16, false), bytes(64, 64, 64, DType::bf16, false));  // the forward's
}

TEST(LogitGradsPlan, FourBlocksFitAHopperSmAtHeadDim64Only) {
  EXPECT_TRUE(four_logit_grads_blocks_fit(bytes(32, 64, 64, DType::bf16), kHopper));
  EXPECT_TRUE(four_logit_grads_blocks_fit(bytes(32, 64, 64, DType::fp16), kHopper));
  EXPECT_FALSE(four_logit_grads_blocks_fit(bytes(32, 64, 64, DType::bf16), kA100));
  EXPECT_FALSE(four_logit_grads_blocks_fit(bytes(32, 64, 64, DType::bf16), kAda));
  EXPECT_FALSE(four_logit_grads_blocks_fit(bytes(32, 128, 64, DType::bf16), kHopper));  // K = V = 128
  EXPECT_FALSE(four_logit_grads_blocks_fit(bytes(64, 64, 64, DType::bf16), kHopper));   // chunks of 64
  EXPECT_FALSE(four_logit_grads_blocks_fit(bytes(32, 64, 64, DType::fp32), kHopper));   // fp32 rows
  EXPECT_TRUE(four_logit_grads_blocks_fit(56 * 1024, kHopper));  // 4 x 57 KiB = 228 KiB: the SM's room
  EXPECT_FALSE(four_logit_grads_blocks_fit(56 * 1024 + 16, kHopper));
}

TEST(LogitGradsPlan, FourBlocksOnlyFor16BitInputsAtFourTilesOrFewer) {
  EXPECT_EQ(logit_grads_blocks(4, 2, true), 4);
  EXPECT_EQ(logit_grads_blocks(kExactLogitTiles, 2, true), 4);
  EXPECT_EQ(logit_grads_blocks(4, 2, false), 3);
  EXPECT_EQ(logit_grads_blocks(4, 4, true), 3);  // fp32's x and y in fp32: never four
  EXPECT_EQ(logit_grads_blocks(8, 2, true), 2);
  EXPECT_EQ(logit_grads_blocks(8, 4, false), 2);
}

// The kernels' products take the exact count only where every warp of a strip holds that many tiles: the
// warps a strip's slots split among (8 / (C / 16)) times the count is M / 8. Elsewhere the count is run-time,
// bounded by 4 or 8; a bound below a warp's share would leave slots without logits.
TEST(LogitGradsPlan, KernelTilesAreExactOnlyWhereTheSplitIsEven) {
  EXPECT_EQ(logit_kernel_tiles(32, 64), kExactLogitTiles);   // gsa's default: 4 warps x 2 of 8 tiles
  EXPECT_EQ(logit_kernel_tiles(16, 128), kExactLogitTiles);  // 8 warps x 2 of 16
  EXPECT_EQ(logit_kernel_tiles(64, 32), kExactLogitTiles);   // 2 warps x 2 of 4
  EXPECT_EQ(logit_kernel_tiles(32, 48), 4);                  // 6 tiles over 4 warps: 2, 2, 2, 0
  EXPECT_EQ(logit_kernel_tiles(16, 64), 4);                  // 1 a warp
  EXPECT_EQ(logit_kernel_tiles(64, 64), 4);
  EXPECT_EQ(logit_kernel_tiles(32, 128), 4);
  EXPECT_EQ(logit_kernel_tiles(64, 128), 8);
  EXPECT_EQ(logit_kernel_tiles(64, 80), 8);  // 10 tiles over 2 warps
  for (int C : {16, 32, 64})
    for (int M = 16; M <= 128; M += 16) {
      const int groups = logit_groups(C), tiles = logit_kernel_tiles(C, M);
      EXPECT_GE(tiles, logit_tiles(C, M)) << "C " << C << " M " << M;  // every warp's share fits
      if (tiles == kExactLogitTiles) {
        EXPECT_EQ(tiles * groups, M / 8) << "C " << C << " M " << M;
      }
    }
}

}  // namespace
}  // namespace flabench::gsa
