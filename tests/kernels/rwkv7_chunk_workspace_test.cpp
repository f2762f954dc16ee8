// rwkv7 chunk's workspace: the chunk forward's regions first, then fused_recurrent's from fused_base (the
// states and a^T S terms the chunk forward saves where that backward reads them), then either backward's own
// regions in the same place (only one runs), each the size its tensor needs, in order, disjoint and 16 bytes
// aligned, for the shapes and chunk sizes the variant takes; the local gradients' scratch one block's worth
// per resident block; the fp32 copies of a bf16 forward's planes only where asked for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/rwkv7/chunk_workspace.h"
#include "tests/kernels/workspace_regions.h"

namespace flabench {
namespace {

TEST(Rwkv7ChunkWorkspace, ChunkForwardThenFusedRegionsThenEitherBackwardsInOrderAndAligned) {
  for (std::int64_t T : {1, 17, 1000})
    for (int C : {16, 32, 64})
      for (std::int64_t K : {16, 128})
        for (std::int64_t V : {16, 64})
          for (const bool copies : {false, true}) {
            Problem p{2, T, 3, K, V, DType::bf16, C};
            const rwkv7::ChunkWorkspace w(p, copies);
            const fused::WorkspaceLayout<Rwkv7Form> fused(p);
            EXPECT_EQ(w.checkpoints, w.fused_base + fused.checkpoints);
            EXPECT_EQ(w.sa, w.fused_base + fused.sa);
            const std::size_t heads = 6, chunks = (T + C - 1) / C, checkpoints = (T + 15) / 16;
            const std::size_t copy = copies ? 1 : 0;  // the fp32 copies' regions are empty without them
            const std::size_t scratch = (rwkv7::LocalScratch(C, int(K)).floats + 3) / 4 * 4;
            const std::size_t terms = (rwkv7::ChannelTerms(C, int(K)).floats + 3) / 4 * 4;
            EXPECT_EQ(w.slots, std::min<std::size_t>(heads * chunks, rwkv7::kLocalSlots));
            const std::vector<testing::Region> forward = {{w.qk, heads * chunks * C * C},
                                                          {w.qb, heads * chunks * C * C},
                                                          {w.w, heads * chunks * C * K},
                                                          {w.u, heads * chunks * C * V},
                                                          {w.kg, heads * chunks * C * K},
                                                          {w.bg, heads * chunks * C * K},
                                                          {w.decay, heads * chunks * (C / 16) * K},
                                                          {w.qg, heads * chunks * C * K},
                                                          {w.checkpoints, heads * checkpoints * K * V},
                                                          {w.sa, std::size_t(2 * T * 3 * V)}};
            std::vector<testing::Region> with_fused = forward, with_chunked = forward;
            with_fused.push_back({w.fused_base + fused.dsa, fused.total - fused.dsa});
            with_chunked.insert(with_chunked.end(), {{w.x, heads * chunks * C * C},
                                                     {w.ak, heads * chunks * C * C},
                                                     {w.w32, copy * heads * chunks * C * K},
                                                     {w.bg32, copy * heads * chunks * C * K},
                                                     {w.qb32, copy * heads * chunks * C * C},
                                                     {w.qg32, copy * heads * chunks * C * K},
                                                     {w.dstates, heads * chunks * K * V},
                                                     {w.dvnew, heads * chunks * C * V},
                                                     {w.pairs, heads * chunks * 4 * C * C},
                                                     {w.terms, heads * chunks * terms},
                                                     {w.scratch, w.slots * scratch}});
            EXPECT_EQ(testing::expect_in_order(forward, 4), w.forward_total());  // floats: 4 to 16 bytes
            EXPECT_EQ(testing::expect_in_order(with_fused, 4), w.backward_total(false));
            EXPECT_EQ(testing::expect_in_order(with_chunked, 4), w.backward_total(true));
            // fused_recurrent's backward-only regions and the chunked backward's share their room
            EXPECT_EQ(w.x, (w.fused_base + fused.dsa + 3) / 4 * 4);
          }
}

}  // namespace
}  // namespace flabench
