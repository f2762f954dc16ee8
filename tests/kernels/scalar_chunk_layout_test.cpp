// simple_gla's scalar-gate output kernel layout (kernels/simple_gla/chunk_layout.h): for every chunk size and
// head dim the path takes, the block's warps cover its values in whole 16-value strips within the launch
// bound, every staged row that ldmatrix reads is an odd number of 16-byte vectors (its 8 rows on distinct
// banks) and every region starts on a 16-byte boundary, and the block fits the shared memory of the GPUs the
// suite compares (H100 227 KiB, RTX 40xx 99 KiB) with room for two blocks an SM on the H100 at the peer
// shapes.
#include <gtest/gtest.h>

#include "kernels/simple_gla/chunk_layout.h"

namespace flabench::chunk {
namespace {

constexpr int kChunkSizes[] = {16, 32, 64};
constexpr int kKeys[] = {64, 128};
constexpr std::size_t kHopperBlock = 227 * 1024, kAdaBlock = 99 * 1024, kHopperSm = 228 * 1024;

bool odd_vectors(int elements) {  // bf16 elements to a row
  return elements * 2 % 16 == 0 && elements * 2 / 16 % 2 == 1;
}

TEST(ScalarChunkLayout, WarpsCoverTheValuesInWholeStrips) {
  for (int V = 16; V <= 512; V += 16) {
    const ScalarLayout L = scalar_layout(64, 64, V);
    SCOPED_TRACE(testing::Message() << "V=" << V << " W=" << L.W);
    EXPECT_GE(L.W, 1);
    EXPECT_LE(L.W, kScalarMaxWarps);
    EXPECT_EQ(V % (kScalarStrip * L.W), 0);
    if (V % 128 == 0) {
      EXPECT_EQ(L.W, kScalarMaxWarps);  // A built once per chunk where V allows
    }
  }
  EXPECT_EQ(scalar_layout(64, 64, 64).W, 4);
  EXPECT_EQ(scalar_layout(64, 64, 48).W, 1);
  EXPECT_EQ(scalar_layout(64, 64, 96).W, 2);
}

TEST(ScalarChunkLayout, RowsSuitLdmatrixAndRegionsAreAligned) {
  for (int C : kChunkSizes)
    for (int K : kKeys)
      for (int V : {16, 32, 64, 128, 256}) {
        const ScalarLayout L = scalar_layout(C, K, V);
        SCOPED_TRACE(testing::Message() << "C=" << C << " K=" << K << " V=" << V);
        EXPECT_TRUE(odd_vectors(L.ldK()));
        EXPECT_TRUE(odd_vectors(L.ldV()));
        EXPECT_TRUE(odd_vectors(L.ldC()));
        // q, k, v, A's high and low planes, the decays: each region's start in bytes
        for (int start :
             {0, C * L.ldK(), 2 * C * L.ldK(), L.inputs(), L.inputs() + C * L.ldC(), L.inputs() + L.planes()})
          EXPECT_EQ(start * 2 % 16, 0) << start;
      }
}

TEST(ScalarChunkLayout, BlocksFitTheGpusTheSuiteCompares) {
  for (int C : kChunkSizes)
    for (int K : kKeys)
      for (int V : {64, 128}) {
        const ScalarLayout L = scalar_layout(C, K, V);
        SCOPED_TRACE(testing::Message() << "C=" << C << " K=" << K << " V=" << V);
        EXPECT_LE(L.bytes(), kAdaBlock);
        EXPECT_LE(2 * (L.bytes() + 1024), kHopperSm);  // two blocks (1 KiB reserved each) to an H100 SM
      }
  EXPECT_LE(scalar_layout(64, 128, 256).bytes(), kHopperBlock);
}

// The gradients kernel (chunk_backward.cuh): its staged rows suit ldmatrix, its regions are aligned, and it
// fits where the variant sends it: an H100 at every V up to 256, two blocks an SM up to 128, and on an RTX
// 40xx (99 KiB) D = 64 at every chunk size and D = 128 up to C = 32 (C = 64 falls back to the general
// backward).
TEST(ScalarChunkLayout, GradientBlocksSuitLdmatrixAndFit) {
  for (int C : kChunkSizes)
    for (int K : kKeys)
      for (int V = 16; V <= 256; V += 16) {
        const ScalarGradLayout L{C, K, V};
        SCOPED_TRACE(testing::Message() << "C=" << C << " K=" << K << " V=" << V);
        EXPECT_TRUE(odd_vectors(L.ldK()));
        EXPECT_TRUE(odd_vectors(L.ldV()));
        EXPECT_TRUE(odd_vectors(L.ldC()));
        // q, k, v, do, M's and A's two planes each, the floats: each region's start in bytes
        const int q = 0, k = C * L.ldK(), v = 2 * C * L.ldK(), d_o = v + C * L.ldV(),
                  planes = d_o + C * L.ldV();
        for (int start : {q, k, v, d_o, planes, planes + C * L.ldC(), planes + 2 * C * L.ldC(),
                          planes + 3 * C * L.ldC(), planes + 4 * C * L.ldC()})
          EXPECT_EQ(start * 2 % 16, 0) << start;
        EXPECT_LE(L.bytes(), kHopperBlock);
        if (V <= 128) {
          EXPECT_LE(2 * (L.bytes() + 1024), kHopperSm);
        }
        if (K == 64 && V <= 64) {
          EXPECT_LE(L.bytes(), kAdaBlock);
        }
      }
  EXPECT_LE((ScalarGradLayout{32, 128, 128}.bytes()), kAdaBlock);
  EXPECT_GT((ScalarGradLayout{64, 128, 128}.bytes()), kAdaBlock);
}

}  // namespace
}  // namespace flabench::chunk
