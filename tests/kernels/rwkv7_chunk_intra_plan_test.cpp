// rwkv7 chunk's tensor-core intra kernel as the host plans it (kernels/rwkv7/chunk_intra_plan.h): the blocks
// an SM its launch bounds are built for fit a Hopper SM's shared memory at every chunk size and K (at C = 64
// and K = 128 only with one raw buffer: two left a block an SM, 1.14x slower, kernels/notes/rwkv7_chunk.md
// v16b), and a block fits an RTX 40xx's 99 KiB wherever the variant promises one (C <= 32 at K = 128).
#include <gtest/gtest.h>

#include <cstddef>

#include "kernels/rwkv7/chunk_intra_plan.h"

namespace flabench::rwkv7 {
namespace {

constexpr std::size_t kHopperSm = 228 * 1024, kReservedPerBlock = 1024, kAdaBlock = 99 * 1024;

TEST(Rwkv7ChunkIntraPlan, TheBlocksItIsBuiltForShareAHopperSm) {
  for (int C : {16, 32, 64})
    for (int K : {16, 32, 64, 128}) {
      const std::size_t block = std::size_t(intra_mma_shared_bytes(C, K)) + kReservedPerBlock;
      EXPECT_LE(intra_mma_blocks_per_sm(C) * block, kHopperSm) << "C" << C << " K" << K;
    }
}

TEST(Rwkv7ChunkIntraPlan, ABlockFitsAnRtx40xxUpToItsPromisedShapes) {
  for (int C : {16, 32, 64})
    for (int K : {16, 32, 64, 128})
      if (C <= 32 || K <= 64) {
        EXPECT_LE(std::size_t(intra_mma_shared_bytes(C, K)), kAdaBlock) << "C" << C << " K" << K;
      }
}

TEST(Rwkv7ChunkIntraPlan, TheTailsPlanesFitInTheSlicesRoomWhereItTakesThem) {
  for (int C : {16, 32, 64})
    for (int V : {16, 32, 64, 128})
      if (tail_planes(C)) {
        EXPECT_LE(intra_tail_bytes(C, V), intra_slice_bytes(C)) << "C" << C << " V" << V;
        EXPECT_EQ(intra_pair_bytes(C) % 16, 0) << "C" << C;  // the planes start 16-byte aligned
      }
  EXPECT_FALSE(tail_planes(64));  // its pair matrices fill the room
  EXPECT_GT(intra_tail_bytes(64, 16), intra_slice_bytes(64));
}

}  // namespace
}  // namespace flabench::rwkv7
