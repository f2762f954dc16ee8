// rwkv7 chunk backward's per-channel kernel as the host plans its shared memory
// (kernels/rwkv7/chunk_channel_plan.h): the 16-bit pair planes hold every element once, keep a row's 16-byte
// pieces whole and aligned, and put ldmatrix's eight rows on distinct banks (the swizzle that replaced
// padding, v57); three 16-bit blocks fit a Hopper SM at C <= 32, where v57 was measured, and every block
// fits the Hopper's 227 KiB.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <vector>

#include "kernels/rwkv7/chunk_channel_plan.h"

namespace flabench::rwkv7 {
namespace {

constexpr std::size_t kHopperSm = 228 * 1024, kHopperBlock = 227 * 1024, kReservedPerBlock = 1024;

std::size_t channel_bytes(int C, int input_bytes) {
  return sizeof(float) * std::size_t(channel_shared_floats(C, input_bytes));
}

TEST(Rwkv7ChunkChannelPlan, PairPlanesHoldEveryElementOnceInWholeAlignedPieces) {
  for (int C : {16, 32, 64}) {
    SCOPED_TRACE(::testing::Message() << "C" << C);
    std::vector<int> seen(C * C, 0);
    for (int i = 0; i < C; ++i)
      for (int m = 0; m < C; ++m) {
        const int at = pair_plane_offset(C, i, m);
        ASSERT_GE(at, i * C);
        ASSERT_LT(at, (i + 1) * C) << "element (" << i << ", " << m << ") left its row";
        ++seen[at];
        EXPECT_EQ(at, pair_plane_offset(C, i, m & ~7) + (m & 7)) << "a piece split";
        EXPECT_EQ(pair_plane_offset(C, i, m & ~7) % 8, 0) << "a piece not 16-byte aligned";
      }
    for (int n : seen) EXPECT_EQ(n, 1);
  }
}

TEST(Rwkv7ChunkChannelPlan, LdmatrixRowsTakeDistinctBanks) {
  // ldmatrix reads an 8 x 8 tile as eight rows' 16-byte pieces: conflict-free where the eight pieces fall on
  // the eight 16-byte bank groups of a 128-byte line (the kernel's tiles start at rows that are multiples
  // of 8, for both its plain and its transposing reads)
  for (int C : {16, 32, 64})
    for (int r0 = 0; r0 < C; r0 += 8)
      for (int m = 0; m < C; m += 8) {
        std::set<int> groups;
        for (int r = 0; r < 8; ++r) groups.insert(2 * pair_plane_offset(C, r0 + r, m) / 16 % 8);
        EXPECT_EQ(groups.size(), 8u) << "C" << C << " rows " << r0 << " piece " << m / 8;
      }
}

TEST(Rwkv7ChunkChannelPlan, BlocksFitWhereTheKernelWasMeasured) {
  const auto blocks_per_sm = [](std::size_t bytes) { return kHopperSm / (bytes + kReservedPerBlock); };
  // 16-bit inputs: three blocks an SM at C <= 32, as its __launch_bounds__ ask (at C = 64 one: the bound of
  // two there only caps its registers)
  EXPECT_GE(blocks_per_sm(channel_bytes(16, 2)), 3u);
  EXPECT_GE(blocks_per_sm(channel_bytes(32, 2)), 3u);
  // the planes take less room than the fp32 matrices they replace
  for (int C : {16, 32, 64}) EXPECT_LT(pair_planes_floats(C), pair_grads_floats(C)) << "C" << C;
  for (int C : {16, 32, 64})
    for (int bytes : {2, 4}) EXPECT_LE(channel_bytes(C, bytes), kHopperBlock) << "C" << C << " " << bytes;
}

}  // namespace
}  // namespace flabench::rwkv7
