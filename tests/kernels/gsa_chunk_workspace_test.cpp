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
              for (DType dtype : {DType::bf16, DType::fp16, DType::fp32}) {
                // the inputs' and the scan operand's element (fp16's operand is fp32, bf16's two bf16
                // planes: chunk::Prepared, kPreparedParts)
                const std::size_t element = 4, input = dtype_size(dtype);
                Problem p{2, T, 3, K, V, dtype};
                p.M = M, p.G = G, p.chunk_size = C;
                const gsa::ChunkWorkspace w(p, element, input);
                const std::size_t heads = 6, chunks = (T + C - 1) / C, D = std::max(K, V),
                                  copies = G > 1 ? 1 : 0,        // grouped queries' copies
                    side = G == 1 ? 1 : 0,                       // pass 2's own scratch
                    fp16 = dtype == DType::fp16 ? 1 : 0,         // the logit gradient's fp32 path
                    sixteen_bit = dtype == DType::fp32 ? 0 : 1,  // dz in fp32 for pass 1's reverse scan
                    // pass 1's ds and df added afterwards: grouped queries
                    added_after = G > 1 ? 1 : 0;
                const std::vector<testing::Region> regions = {
                    {w.value_states, 4 * heads * chunks * M * V},
                    {w.key_states, 4 * heads * chunks * M * K},
                    {w.key_initial, 4 * heads * M * K},
                    {w.key_final, 4 * heads * M * K},
                    {w.whole, 4 * heads * chunks * M},
                    {w.slots_to_end, element * heads * chunks * C * M},
                    {w.weights, input * 2 * T * 3 * G * M},
                    {w.saved_weights, sizeof(float) * 2 * T * 3 * G * M},
                    {w.logit_grads, input * 2 * T * 3 * G * M},
                    {w.slot_grads, added_after * input * 2 * T * 3 * M},
                    {w.gate_grads, added_after * input * 2 * T * 3 * M},
                    {w.state_grads, 4 * G * heads * chunks * M * D},
                    {w.queries_from_start, element * G * heads * chunks * C * M},
                    {w.side_state_grads, side * 4 * G * heads * chunks * M * D},
                    {w.side_queries_from_start, side * element * G * heads * chunks * C * M},
                    {w.slot_copies, copies * input * 2 * T * 3 * G * M},
                    {w.gate_copies, copies * input * 2 * T * 3 * G * M},
                    {w.row_copies, copies * input * 2 * T * 3 * G * D},
                    {w.state_copies, copies * 4 * G * heads * chunks * M * D},
                    {w.whole_copies, copies * 4 * G * heads * chunks * M},
                    {w.slots_to_end_copies, copies * element * G * heads * chunks * C * M},
                    {w.final_grad_copies, copies * 4 * G * heads * M * D},
                    {w.initial_grad_copies, copies * 4 * G * heads * M * D},
                    {w.slot_grad_copies, copies * input * 2 * T * 3 * G * M},
                    {w.gate_grad_copies, copies * input * 2 * T * 3 * G * M},
                    {w.row_grad_copies, copies * input * 2 * T * 3 * G * D},
                    {w.logit_grads_fp32, sixteen_bit * 4 * 2 * T * 3 * G * M},
                    {w.balanced_queries, fp16 * 2 * 2 * T * 3 * G * K},
                    {w.row_scales, fp16 * 4 * 2 * T * 3 * G}};
                const std::size_t end = testing::expect_in_order(regions, 16);
                EXPECT_GE(w.total, end);
                EXPECT_LT(w.total, end + 16);
              }
}

// gsa's fused fwd+bwd in chunk form saves pass 2's states transposed into the state-gradient room where
// its rule says so (kernels/gsa/fused_recurrent.cu, version 52), and its backward transposes them into
// value_states before its reverse scan writes that room: the room holds them (G = 1, the gla passes' only
// case; that it is none of the regions the forward writes, the test above checks).
TEST(GsaChunkWorkspace, TheStateGradientRoomHoldsPassTwosTransposedStates) {
  for (std::int64_t T : {33, 4100, 24576})
    for (std::int64_t K : {32, 64, 128})
      for (std::int64_t V : {32, 64, 128})
        for (std::int64_t M : {32, 64, 128}) {
          Problem p{2, T, 3, K, V, DType::bf16};
          p.M = M, p.chunk_size = 32;
          const gsa::ChunkWorkspace w(p, 4, 2);
          const std::size_t transposed = sizeof(float) * 6 * ((T + 31) / 32) * M * V;
          EXPECT_GE(w.queries_from_start - w.state_grads, transposed)
              << "K " << K << " V " << V << " M " << M;
        }
}

}  // namespace
}  // namespace flabench
