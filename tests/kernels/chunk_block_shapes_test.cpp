// The chunk kernels' block shapes (kernels/common/chunk/block_shapes.h): for every chunk size and head dim
// the variant takes, each launch has whole warps within its kernel's launch bound, every warp of a block
// holds between 1 and kMaxStripTiles 8-column tiles of its 16-row strip, and the warps cover the block's
// columns exactly once. (A 16-warp value-gradient block at C = 16 would leave its warps no tile at all.)
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "kernels/common/chunk/block_shapes.h"

namespace flabench::chunk {
namespace {

constexpr int kChunkSizes[] = {16, 32, 64};

TEST(ChunkBlockShapes, ValueGradientWarpsCoverTheirBlockOnce) {
  for (int C : kChunkSizes)
    for (int K = 16; K <= 256; K += 16) {
      const int threads = value_grads_threads(C, K), warps = threads / 32, strips = C / kSubChunk,
                tiles = value_grads_tiles(C, threads);
      SCOPED_TRACE(testing::Message() << "C=" << C << " K=" << K << " threads=" << threads);
      EXPECT_EQ(threads % 32, 0);
      EXPECT_LE(threads, kValueGradMaxThreads);
      EXPECT_EQ(warps % strips, 0);
      EXPECT_GE(tiles, 1);
      EXPECT_LE(tiles, kMaxStripTiles);
      EXPECT_EQ(warps / strips * 8 * tiles, kGradValues);  // each strip's columns, once
    }
}

TEST(ChunkBlockShapes, SixteenValueGradientWarpsOnlyWhereSharedMemoryLeavesTwoBlocks) {
  EXPECT_EQ(value_grads_threads(32, 64), 256);   // three or four blocks to an SM
  EXPECT_EQ(value_grads_threads(64, 64), 512);   // two
  EXPECT_EQ(value_grads_threads(32, 128), 512);  // two
  EXPECT_EQ(value_grads_threads(16, 256), 256);  // C = 16: 16 warps would leave warps without a tile
}

// Key tiles only at C = 64 and K >= 128, and only whole ones (a partial last tile would read the head's bonus
// u past its K channels).
TEST(ChunkBlockShapes, OutputKeyTilesAreWholeAndOnlyWhereMeasuredToPay) {
  EXPECT_EQ(output_key_tile(64, 128), 32);
  EXPECT_EQ(output_key_tile(64, 256), 32);
  EXPECT_EQ(output_key_tile(64, 64), 64);
  EXPECT_EQ(output_key_tile(32, 128), 128);
  EXPECT_EQ(output_key_tile(16, 256), 256);
  EXPECT_EQ(output_key_tile(64, 144), 144);
  for (int C : kChunkSizes)
    for (int K = 16; K <= 256; K += 16) EXPECT_EQ(K % output_key_tile(C, K), 0) << "C=" << C << " K=" << K;
}

// 16 key-gradient warps only at C = 64 with 16-bit inputs (two 101 KiB blocks an SM), and every block's dg
// walk splits the chunk into whole pieces, one per 32 threads.
TEST(ChunkBlockShapes, KeyGradientWarpsSplitTheChunkIntoWholePieces) {
  EXPECT_EQ(key_grads_threads(64, 2), kKeyGradMaxThreads);
  EXPECT_EQ(key_grads_threads(64, 4), kKeyGradThreads);
  EXPECT_EQ(key_grads_threads(32, 2), kKeyGradThreads);
  for (int C : kChunkSizes)
    for (int bytes : {2, 4})
      EXPECT_EQ(C % (key_grads_threads(C, bytes) / 32), 0) << "C=" << C << " " << bytes;
}

// The key gradients' value loop is compiled for even tile counts at the chunk sizes the peer shapes take (32
// and 64, every block size they launch with), each warp's run whole and the warps of a strip covering the
// product once; at C = 16 some warps have no tiles, so the count stays a run-time one there.
TEST(ChunkBlockShapes, KeyGradientValueLoopHasEvenTilesWhereItCan) {
  for (int C : kChunkSizes)
    for (int bytes : {2, 4}) {
      const int threads = key_grads_threads(C, bytes), groups = strip_groups(C, threads);
      SCOPED_TRACE(testing::Message() << "C=" << C << " bytes=" << bytes);
      // (columns, the tiles a warp's accumulators hold): dA's C (dA_acc[4]), a state product's kKeyTile
      // channels (from_acc[2] and to_acc[2])
      for (const auto& [columns, most] : {std::pair{C, kMaxStripTiles}, std::pair{kKeyTile, 2}}) {
        const int even = key_grads_even_tiles(C, columns, threads);
        EXPECT_EQ(even > 0, C >= 32) << "columns=" << columns;
        if (even > 0) {
          EXPECT_EQ(even * groups * 8, columns);
        }
        EXPECT_LE(even, most) << "columns=" << columns;
        // The runs the kernel deals at run time (strip_of): within the accumulators, every tile once, the
        // even count where there is one.
        const int run = strip_run(columns, groups);
        EXPECT_LE(run, most) << "columns=" << columns;
        if (even > 0) {
          EXPECT_EQ(run, even) << "columns=" << columns;
        }
        int covered = 0;
        for (int group = 0; group < groups; ++group)
          covered += std::max(0, std::min(run, columns / 8 - group * run));
        EXPECT_EQ(covered * 8, columns) << "columns=" << columns;
      }
    }
}

TEST(ChunkBlockShapes, OutputWarpsCoverTheirBlockOnce) {
  for (int C : kChunkSizes)
    for (int VT : {64, 128}) {
      const int threads = output_threads(VT), warps = threads / 32, strips = C / kSubChunk, tiles = strips;
      SCOPED_TRACE(testing::Message() << "C=" << C << " VT=" << VT);
      EXPECT_LE(threads, kOutputMaxThreads);
      EXPECT_EQ(warps % strips, 0);
      EXPECT_LE(tiles, kMaxStripTiles);
      EXPECT_EQ(warps / strips * 8 * tiles, VT);
    }
}

}  // namespace
}  // namespace flabench::chunk
