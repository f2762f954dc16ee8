// rwkv7 chunk's workspace: fused_recurrent's regions first, where that backward reads the states and a^T S
// terms the chunk forward saves, then the chunk forward's own and the chunked backward's, each the size its
// tensor needs, in order, disjoint and 16 bytes aligned, for the shapes and chunk sizes the variant takes;
// the local gradients' scratch one block's worth per resident block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/rwkv7/chunk_workspace.h"
#include "tests/kernels/workspace_regions.h"

namespace flabench {
namespace {

TEST(Rwkv7ChunkWorkspace, FusedRegionsFirstThenTheChunksInOrderAndAligned) {
  for (std::int64_t T : {1, 17, 1000})
    for (int C : {16, 32, 64})
      for (std::int64_t K : {16, 128})
        for (std::int64_t V : {16, 64}) {
          Problem p{2, T, 3, K, V, DType::bf16, C};
          const rwkv7::ChunkWorkspace w(p);
          const fused::WorkspaceLayout<Rwkv7Form> fused(p);
          EXPECT_EQ(w.checkpoints, fused.checkpoints);
          EXPECT_EQ(w.sa, fused.sa);
          const std::size_t heads = 6, chunks = (T + C - 1) / C, checkpoints = (T + 15) / 16;
          const std::size_t scratch = (rwkv7::LocalScratch(C, int(K)).floats + 3) / 4 * 4;
          EXPECT_EQ(w.slots, std::min<std::size_t>(heads * chunks, rwkv7::kLocalSlots));
          const std::vector<testing::Region> regions = {{w.checkpoints, heads * checkpoints * K * V},
                                                        {w.sa, std::size_t(2 * T * 3 * V)},
                                                        {fused.dsa, fused.total - fused.dsa},
                                                        {w.qk, heads * chunks * C * C},
                                                        {w.qb, heads * chunks * C * C},
                                                        {w.w, heads * chunks * C * K},
                                                        {w.u, heads * chunks * C * V},
                                                        {w.kg, heads * chunks * C * K},
                                                        {w.bg, heads * chunks * C * K},
                                                        {w.decay, heads * chunks * (C / 16) * K},
                                                        {w.qg, heads * chunks * C * K},
                                                        {w.x, heads * chunks * C * C},
                                                        {w.ak, heads * chunks * C * C},
                                                        {w.w32, heads * chunks * C * K},
                                                        {w.bg32, heads * chunks * C * K},
                                                        {w.dstates, heads * chunks * K * V},
                                                        {w.dvnew, heads * chunks * C * V},
                                                        {w.scratch, w.slots * scratch}};
          EXPECT_EQ(testing::expect_in_order(regions, 4), w.total);  // floats: 4 to 16 bytes
          EXPECT_EQ(w.forward_total(), w.x);  // a forward alone: none of the chunked backward's regions
        }
}

}  // namespace
}  // namespace flabench
