// The sizes of rwkv7 chunk's state pass (chunk_states.cuh, chunk_states_mma.cuh) and of the backward's
// reverse scan on the tensor cores (chunk_backward_states_mma.cuh) as the host plans them: a block's threads
// and shared memory, and the value columns a block holds. Host-safe, so
// tests/kernels/rwkv7_chunk_states_plan_test.cpp checks the rule on the CPU.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/rwkv7/chunk_workspace.h"

namespace flabench::rwkv7 {

// Value columns a block holds (state_columns picks them).
constexpr int kStateColumns = 16, kNarrowStateColumns = 8, kWideStateColumns = 32;
constexpr int kStep = kCheckpointTokens;  // tokens per state update
__host__ __device__ constexpr int state_threads(int columns) {
  return 16 * columns;  // 16 row groups
}
// The tensor-core passes' (chunk_states_mma.cuh, chunk_backward_states_mma.cuh) scanning threads at K = 16
// KQ: a warp per 16 keys; then, with copy warps (chunk_states_feed.cuh), as many copy threads.
__host__ __device__ constexpr int mma_scan_threads(int KQ) {
  return 32 * KQ;
}
__host__ __device__ constexpr int mma_state_threads(int KQ, bool copy_warps) {
  return (copy_warps ? 2 : 1) * mma_scan_threads(KQ);
}
// Copy warps at K <= 64 always (v44); at K = 128 where a grid of `blocks` has an SM a block (v46): the
// forward's 256 scanning threads there take 128 registers each at two blocks an SM (4,4096,16,128; v39),
// which copy warps would halve.
inline bool mma_state_copy_warps(int KQ, std::int64_t blocks, int sms) {
  return KQ <= 4 || blocks <= sms;
}

// Shared rows are padded_row()'s (chunk_workspace.h): the CUDA-core pass's (fp16 and fp32 inputs) W, k~, b~
// key rows (W's padding puts two row groups' reads in one wavefront), S and V_new value rows, v's rows; the
// tensor-core pass's bf16 planes (W, k~, b~, S^T, V_new, v) likewise: an odd count of 16-byte pieces a row at
// K a multiple of 16, so ldmatrix's eight rows fall on distinct banks.
// One chunk's operands in shared memory (floats; v as the input type), for `cols` value columns.
__host__ __device__ constexpr int operand_floats(int C, int K, int input_bytes, int cols) {
  return 3 * C * padded_row(K)                                   // W, k~, b~
         + (C / kStep) * K                                       // the steps' decays
         + C * cols                                              // U
         + C * padded_row(cols, input_bytes) * input_bytes / 4;  // v
}
// S and V_new: the state at the chunk's start and the chunk's a^T S.
__host__ __device__ constexpr int fixed_floats(int C, int K, int cols) {
  return (K + C) * padded_row(cols);
}
// Two chunks' operands where they fit in `limit` bytes (the next one arrives during this one), else one.
__host__ __device__ constexpr int operand_buffers(int C, int K, int input_bytes, int cols,
                                                  std::size_t limit) {
  return sizeof(float) * (fixed_floats(C, K, cols) + 2 * operand_floats(C, K, input_bytes, cols)) <= limit
             ? 2
             : 1;
}
__host__ __device__ constexpr int states_shared_floats(int C, int K, int input_bytes, int cols, int buffers) {
  return fixed_floats(C, K, cols) + buffers * operand_floats(C, K, input_bytes, cols);
}

// The tensor-core pass (bf16 inputs) reads W, k~ and b~ as intra writes them there, high and low bf16 planes,
// whole fragments at a time by ldmatrix, and keeps S^T and V_new as planes too.
// One chunk's operands (bytes): W, k~, b~ [C][K] in two planes each, the steps' decays, U, v.
__host__ __device__ constexpr int mma_operand_bytes(int C, int K, int cols) {
  return 3 * 2 * C * padded_row(K, 2) * 2 + (C / kStep) * K * 4 + C * cols * 4 + C * padded_row(cols, 2) * 2;
}
// S^T [cols][K] and V_new [C][cols], two planes each.
__host__ __device__ constexpr int mma_fixed_bytes(int C, int K, int cols) {
  return 2 * cols * padded_row(K, 2) * 2 + 2 * C * padded_row(cols, 2) * 2;
}
__host__ __device__ constexpr int mma_operand_buffers(int C, int K, int cols, std::size_t limit) {
  return std::size_t(mma_fixed_bytes(C, K, cols) + 2 * mma_operand_bytes(C, K, cols)) <= limit ? 2 : 1;
}
__host__ __device__ constexpr int mma_states_shared_bytes(int C, int K, int cols, int buffers) {
  return mma_fixed_bytes(C, K, cols) + buffers * mma_operand_bytes(C, K, cols);
}
// The backward's reverse scan on the tensor cores (chunk_backward_states_mma.cuh), the same way.
// One chunk's operands in shared memory (bytes): A_qb [C][C], W, q e^Γ and b~ [C][K] as two bf16 planes each,
// the steps' decays, dO [C][cols].
__host__ __device__ constexpr int mma_dstate_operand_bytes(int C, int K, int cols) {
  return 2 * C * padded_row(C, 2) * 2 + 3 * 2 * C * padded_row(K, 2) * 2 + (C / kStep) * K * 4 +
         C * padded_row(cols, 2) * 2;
}
// dS^T [cols][K] decayed to each 16-token step's end and dV_new [C][cols], two planes each.
__host__ __device__ constexpr int mma_dstate_fixed_bytes(int C, int K, int cols) {
  return (C / kStep) * 2 * cols * padded_row(K, 2) * 2 + 2 * C * padded_row(cols, 2) * 2;
}
__host__ __device__ constexpr int mma_dstate_buffers(int C, int K, int cols, std::size_t limit) {
  return std::size_t(mma_dstate_fixed_bytes(C, K, cols) + 2 * mma_dstate_operand_bytes(C, K, cols)) <= limit
             ? 2
             : 1;
}
__host__ __device__ constexpr int mma_dstate_shared_bytes(int C, int K, int cols, int buffers) {
  return mma_dstate_fixed_bytes(C, K, cols) + buffers * mma_dstate_operand_bytes(C, K, cols);
}

// Operand buffers for a grid of `blocks` on `sms` SMs, given the blocks an SM holds with one and with two
// (the driver's occupancy; 0 where two do not fit): two, so that the next chunk's copies arrive during this
// one, unless one buffer lets the grid run in fewer waves (its blocks then share SMs and hide each other's
// copies: 4,4096,16,128's 256 blocks of 32 columns, one an SM with two buffers, two with one, the pass 0.79
// -> 0.65 ms on an H200; kernels/notes/rwkv7_chunk.md, v25). The tensor-core pass's rule (measured there).
constexpr int state_buffers(std::int64_t blocks, int sms, int resident_one, int resident_two) {
  const auto waves = [&](int resident) {
    const std::int64_t at_once = std::int64_t(resident) * sms;
    return (blocks + at_once - 1) / at_once;
  };
  if (resident_two <= 0) return 1;
  return resident_one > resident_two && waves(resident_one) < waves(resident_two) ? 1 : 2;
}

// Few heads: blocks of a head's 16 value columns fewer than the SMs (1,24576,16,64: 64 for 132). The state
// pass then narrows its blocks, the forward runs in more pieces and the backward takes its chunk form.
inline bool few_heads(std::int64_t heads, int V, int sms) {
  return heads * (V / kStateColumns) < sms;
}

// The value columns a block holds: 8 where 16 would leave SMs without a block (few heads: 1,24576,16,64
// has 64 blocks of 16 for 132 SMs), so that a block's sequential chain covers half as many columns; 32 on
// the tensor cores at K = 128, where a block (8 warps, its two operand buffers 120-140 KiB) has an SM to
// itself and a chunk's W, k~ and b~ then serve twice the columns (4,4096,16,128: the pass 1.49 -> 0.98 ms;
// kernels/notes/rwkv7_chunk.md, v13); else 16.
inline int state_columns(std::int64_t heads, int K, int V, int C, bool tensor_cores, int sms,
                         std::size_t shared_limit) {
  if (few_heads(heads, V, sms)) return kNarrowStateColumns;
  if (tensor_cores && K >= 128 && V % kWideStateColumns == 0 &&
      std::size_t(mma_states_shared_bytes(C, K, kWideStateColumns, 1)) <= shared_limit)
    return kWideStateColumns;
  return kStateColumns;
}

// The pieces the forward runs in (chunk.cu: a piece's state pass beside the next piece's intra, on streams of
// their own): eight where the scan's blocks are fewer than the SMs (few heads: its chain of latency-bound
// steps leaves most of the GPU idle), else two; at least 64 chunks a piece (each piece costs three launches).
// Measured on an H200 at C32 (kernels/notes/rwkv7_chunk.md, v38): 1,24576,16,64 0.93x with eight pieces (two
// 0.97x), the many-heads shapes 0.96-1.00x with two and slower with eight, 8,1024,8,64 slower with any.
inline int forward_pieces(std::int64_t heads, int V, int chunks, int sms) {
  const int wanted = few_heads(heads, V, sms) ? 8 : 2, most = chunks / 64;
  return most < 1 ? 1 : wanted < most ? wanted : most;
}

// The pieces the chunked backward runs in (chunk.cu: a piece's reverse scan beside the later pieces' local
// and channel gradients and, in fused_recurrent's fwd+bwd, the earlier pieces' intra): at few heads, where
// the scan's blocks leave most SMs idle, as the forward; else one, where each step fills the GPU and the
// scan's chain beside other warps slows by more than the overlap gives (measured on an H200, bf16 fwd+bwd at
// C32: kernels/notes/rwkv7_chunk.md, v70).
inline int backward_pieces(std::int64_t heads, int V, int chunks, int sms) {
  const int most = chunks / 64;
  if (!few_heads(heads, V, sms) || most < 1) return 1;
  return most < 8 ? most : 8;
}

// The pieces from which a tensor-core scan at few heads takes 16 columns a block rather than 8. Measured with
// four pieces and eight (1,8192,16,64 and 1,24576,16,64), not with two, where more of the chain is on the
// path.
constexpr int kWideScanPieces = 4;

// The value columns a block holds of a scan over the chunks (the forward's state pass, the backward's reverse
// scan) that runs in `pieces` pieces: state_columns', but 16 for a tensor-core scan in kWideScanPieces pieces
// or more at few heads whose block of 16 (`wide_bytes`, one operand buffer) fits. Its chain then runs beside
// the other pieces' work, and half the blocks leave SMs without a scan block to that work. Measured on an
// H200 (kernels/notes/rwkv7_chunk.md): the forward's state pass (v71) 1,8192,16,64 bf16 forward 0.93-0.95x,
// 1,24576,16,64 0.98x; the reverse scan (v70b) fwd+bwd 0.96-0.98x; fp16's CUDA-core reverse scan was
// 1.02-1.05x slower at 16, so CUDA-core scans keep the rule.
inline int pieced_scan_columns(std::int64_t heads, int K, int V, int C, bool tensor_cores, int sms,
                               std::size_t shared_limit, int pieces, std::size_t wide_bytes) {
  if (tensor_cores && few_heads(heads, V, sms) && pieces >= kWideScanPieces && wide_bytes <= shared_limit)
    return kStateColumns;
  return state_columns(heads, K, V, C, tensor_cores, sms, shared_limit);
}

}  // namespace flabench::rwkv7
