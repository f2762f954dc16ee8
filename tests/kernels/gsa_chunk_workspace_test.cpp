// gsa chunk's workspace: every region the size its tensor needs, in order and disjoint, each starting 16
// bytes aligned (the scan and the output pass move them in 16-byte vectors), for the shapes and dtypes the
// variant takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/gsa/chunk_workspace.h"
#include "tests/kernels/workspace_regions.h"

namespace flabench {
namespace {

TEST(GsaChunkWorkspace, RegionsHoldTheirTensorsInOrderAndAligned) {
  for (std::int64_t T : {1, 17, 1000})
    for (int C : {16, 64})
      for (std::int64_t K : {16, 128})
        for (std::int64_t V : {8, 64})
          for (std::int64_t M : {16, 64, 128})
            for (std::int64_t G : {1, 4})
              for (std::size_t element : {2, 4}) {  // bf16 / fp16 inputs, fp32 inputs or operands
                Problem p{2, T, 3, K, V, element == 2 ? DType::bf16 : DType::fp32};
                p.M = M, p.G = G, p.chunk_size = C;
                const gsa::ChunkWorkspace w(p, element, element);
                const std::size_t heads = 6, chunks = (T + C - 1) / C, D = std::max(K, V),
                                  copies = G > 1 ? 1 : 0,  // grouped queries' copies
                    side = G == 1 ? 1 : 0;                 // pass 2's own scratch
                const std::vector<testing::Region> regions = {
                    {w.value_states, 4 * heads * chunks * M * V},
                    {w.key_states, 4 * heads * chunks * M * K},
                    {w.key_initial, 4 * heads * M * K},
                    {w.key_final, 4 * heads * M * K},
                    {w.whole, 4 * heads * chunks * M},
                    {w.slots_to_end, element * heads * chunks * C * M},
                    {w.weights, element * 2 * T * 3 * G * M},
                    {w.saved_weights, sizeof(float) * 2 * T * 3 * G * M},
                    {w.logit_grads, element * 2 * T * 3 * G * M},
                    {w.unused_grads, element * 2 * T * 3 * G * M},
                    {w.slot_grads, element * 2 * T * 3 * M},
                    {w.gate_grads, element * 2 * T * 3 * M},
                    {w.state_grads, 4 * G * heads * chunks * M * D},
                    {w.queries_from_start, element * G * heads * chunks * C * M},
                    {w.side_unused_grads, side * element * 2 * T * 3 * G * M},
                    {w.side_state_grads, side * 4 * G * heads * chunks * M * D},
                    {w.side_queries_from_start, side * element * G * heads * chunks * C * M},
                    {w.slot_copies, copies * element * 2 * T * 3 * G * M},
                    {w.gate_copies, copies * element * 2 * T * 3 * G * M},
                    {w.row_copies, copies * element * 2 * T * 3 * G * D},
                    {w.state_copies, copies * 4 * G * heads * chunks * M * D},
                    {w.whole_copies, copies * 4 * G * heads * chunks * M},
                    {w.slots_to_end_copies, copies * element * G * heads * chunks * C * M},
                    {w.final_grad_copies, copies * 4 * G * heads * M * D},
                    {w.initial_grad_copies, copies * 4 * G * heads * M * D},
                    {w.slot_grad_copies, copies * element * 2 * T * 3 * G * M},
                    {w.gate_grad_copies, copies * element * 2 * T * 3 * G * M},
                    {w.row_grad_copies, copies * element * 2 * T * 3 * G * D}};
                const std::size_t end = testing::expect_in_order(regions, 16);
                EXPECT_GE(w.total, end);
                EXPECT_LT(w.total, end + 16);
              }
}

}  // namespace
}  // namespace flabench
