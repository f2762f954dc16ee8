// rwkv7 chunk backward's local gradients as the host plans their shared memory
// (kernels/rwkv7/chunk_local_plan.h): the 16-bit kernel's planes start 16-byte aligned with rows of an odd
// number of 16-byte vectors (what ldmatrix needs, without bank conflicts), the regions used at the same time
// do not overlap and end within the block (value slices of 32 and 64 columns), and the blocks fit where the
// chunked backward runs them: two bf16 blocks a Hopper SM at C = 32, K = 128 (the peer shapes' rule), and
// with the wide slices at K = 64, one fp16 or fp32 block at C = 64, K = 128 (few heads); one bf16 block of
// wide slices with its held sums at C = 32, K = 128.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/rwkv7/chunk_local_plan.h"
#include "tests/kernels/workspace_regions.h"

namespace flabench::rwkv7 {
namespace {

constexpr std::size_t kHopperSm = 228 * 1024, kHopperBlock = 227 * 1024, kReservedPerBlock = 1024;

TEST(Rwkv7ChunkLocalPlan, PlanesAlignedAndPhasesDisjoint) {
  for (int C : {16, 32, 64})
    for (int K : {16, 32, 64, 128})
      for (int parts : {1, 2})
        for (int columns : {kLocalSlice, kWideLocalSlice}) {
          SCOPED_TRACE(::testing::Message()
                       << "C" << C << " K" << K << " parts " << parts << " slice " << columns);
          const LocalMmaPlan s = local_mma_plan(C, K, parts, columns);
          for (int row : {s.CR, s.KR, s.SR}) EXPECT_EQ(row * 2 % 32, 16) << "row of " << row << " elements";
          // (floats' regions in bytes: two bf16 planes take 4 bytes an element, one input plane 2)
          const std::size_t square = 4 * C * s.CR, keys = 4 * C * s.KR, slice = 4 * C * s.SR;
          const std::vector<testing::Region> kept = {{std::size_t(s.x), square},
                                                     {std::size_t(s.ak), square},
                                                     {std::size_t(s.qk), square},
                                                     {std::size_t(s.dx), 4u * C * C},
                                                     {std::size_t(s.state_dot), 4u * K}};
          const std::size_t kept_end = testing::expect_in_order(kept, 16);
          std::vector<testing::Region> sums = kept, slices = kept, after = kept;
          sums.insert(sums.end(),
                      {{std::size_t(s.kt), keys}, {std::size_t(s.sums), 4u * (2 * C * K + C / 16 * K)}});
          slices.insert(slices.end(), {{std::size_t(s.kt), keys},
                                       {std::size_t(s.s0), 4u * K * s.SR},
                                       {std::size_t(s.ds), 4u * K * s.SR},
                                       {std::size_t(s.dout), parts * slice / 2},
                                       {std::size_t(s.v), parts * slice / 2},
                                       {std::size_t(s.vn), slice},
                                       {std::size_t(s.dvn), slice},
                                       {std::size_t(s.dakv), slice},
                                       {std::size_t(s.akv), slice}});
          after.insert(after.end(), {{std::size_t(s.dw), keys},
                                     {std::size_t(s.ag), keys},
                                     {std::size_t(s.dxp), square},
                                     {std::size_t(s.xdx), square}});
          EXPECT_LE(testing::expect_in_order(sums, 4), std::size_t(s.bytes));
          EXPECT_LE(testing::expect_in_order(slices, 16), std::size_t(s.bytes));
          EXPECT_LE(testing::expect_in_order(after, 16), std::size_t(s.bytes));
          EXPECT_GE(std::size_t(s.kt), kept_end);
          if (columns == kLocalSlice) {
            EXPECT_EQ(local_shared_bytes(C, K, 2, parts), s.bytes);
          }
        }
}

TEST(Rwkv7ChunkLocalPlan, BlocksFitWhereTheChunkedBackwardRuns) {
  const auto blocks_per_sm = [](std::size_t bytes) { return kHopperSm / (bytes + kReservedPerBlock); };
  // bf16, the D = 128 peer shapes (its registers allow two blocks an SM at most)
  EXPECT_GE(blocks_per_sm(local_shared_bytes(32, 128, 2, 1)), 2u);
  EXPECT_GE(blocks_per_sm(local_shared_bytes(16, 128, 2, 1)), 2u);
  EXPECT_GE(blocks_per_sm(local_shared_bytes(32, 64, 2, 1)), 2u);  // 1,24576,16,64
  // the wide slices (bf16) at K = 64 in chunks of 16 and 32, and at K = 128 in chunks of 16; at C = 32,
  // K = 128 one block an SM (of 512 threads)
  EXPECT_GE(blocks_per_sm(local_mma_plan(32, 64, 1, kWideLocalSlice).bytes), 2u);
  EXPECT_GE(blocks_per_sm(local_mma_plan(16, 64, 1, kWideLocalSlice).bytes), 2u);
  EXPECT_GE(blocks_per_sm(local_mma_plan(16, 128, 1, kWideLocalSlice).bytes), 2u);
  EXPECT_LT(blocks_per_sm(local_mma_plan(32, 128, 1, kWideLocalSlice).bytes), 2u);
  EXPECT_LE(std::size_t(local_mma_plan(32, 128, 1, kWideLocalSlice).bytes), kHopperBlock);  // one of 512
  // ... with the value slices' sums held after its plan (chunk.cu's rule at 2,16384,16,128 and
  // 4,4096,16,128), their rows whole 16-byte vectors from a 16-byte aligned start
  EXPECT_LE(std::size_t(local_mma_plan(32, 128, 1, kWideLocalSlice).bytes) + local_held_bytes(32, 128),
            kHopperBlock);
  EXPECT_EQ(local_mma_plan(32, 128, 1, kWideLocalSlice).bytes % 16, 0);
  EXPECT_EQ(local_held_row(128) * 4 % 16, 0);
  struct Input {
    int bytes, parts;
    const char* name;
  };
  for (int C : {16, 32, 64})
    for (int K : {16, 32, 64, 128})
      for (const Input& in : {Input{4, 0, "fp32"}, Input{2, 2, "fp16"}, Input{2, 1, "bf16"}})
        EXPECT_LE(std::size_t(local_shared_bytes(C, K, in.bytes, in.parts)), kHopperBlock)
            << "C" << C << " K" << K << " " << in.name;
}

}  // namespace
}  // namespace flabench::rwkv7
