// The shared memory of rwkv7 chunk backward's per-channel kernel (chunk_backward_channels.cuh) as the host
// plans it, in floats, and where its 16-bit pair planes keep an element. Host-safe, so
// tests/kernels/rwkv7_chunk_channel_plan_test.cpp checks it on the CPU.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include "kernels/rwkv7/chunk_workspace.h"

namespace flabench::rwkv7 {

constexpr int kKeySlice = 16;           // key channels a block
constexpr int kKeyRow = kKeySlice + 4;  // a staged operand's row: rows 4 banks apart for the B fragments

// The pair matrices' gradients the kernel reads, in the order the workspace holds them.
enum Pair { kQk, kQb, kAk, kAb, kPairs };

// fp32 inputs' pair gradients: [C][C + 4] each (rows 4 banks apart for the A fragments).
__host__ __device__ constexpr int pair_grads_floats(int C) {
  return kPairs * C * (C + 4);
}
// 16-bit inputs': two bf16 planes [C][C] a matrix, then the factor-1 pairs in fp32 [kPairs][C].
__host__ __device__ constexpr int pair_planes_floats(int C) {
  return kPairs * C * C + kPairs * C;
}
// The room of a block's pair gradients by its inputs' bytes.
__host__ __device__ constexpr int pair_room_floats(int C, int input_bytes) {
  return input_bytes == 4 ? pair_grads_floats(C) : pair_planes_floats(C);
}
// Element (i, m) of a 16-bit pair plane [C][C]: piece m / 8 of row i, its 16-byte pieces swizzled by the
// row's place among eight, so that ldmatrix's eight consecutive rows take distinct banks without padding
// (rows padded to an odd number of pieces would not leave three blocks an SM their room at C = 32).
__host__ __device__ constexpr int pair_plane_offset(int C, int i, int m) {
  const int pieces = C / 8, rows_apart = 8 / pieces;  // rows a 128-byte line holds
  return i * C + 8 * ((m >> 3) ^ (i / rows_apart % pieces)) + (m & 7);
}

// The per-channel terms of the block's channels: dO S^T, X^T dW, v dS^T, V_new dS^T [C][kKeySlice] each, then
// S . dS [kKeySlice].
__host__ __device__ constexpr int staged_terms_floats(int C) {
  return (4 * C + 1) * kKeySlice;
}
enum ChannelInput { kInW, kInK, kInB, kInQ, kInA, kChannelInputs };  // raw rows staged [input][C][kKeySlice]
__host__ __device__ constexpr int staged_inputs_floats(int C, int input_bytes) {
  return kChannelInputs * C * kKeySlice * input_bytes / 4;
}
// The step pairs (I, J <= I) of a chunk's 16-token steps.
__host__ __device__ constexpr int step_pairs(int C) {
  return (C / kCheckpointTokens) * (C / kCheckpointTokens + 1) / 2;
}
// A slice's channels (chunk_backward_channels.cuh's ChannelSlice).
__host__ __device__ constexpr int channel_slice_floats(int C) {
  return 16 * C * kKeySlice + 4 * C * kKeyRow + (step_pairs(C) + C / kCheckpointTokens) * kKeySlice;
}
// The block's: the pair matrices' gradients, the staged terms and raw inputs, then the slice.
__host__ __device__ constexpr int channel_shared_floats(int C, int input_bytes) {
  return pair_room_floats(C, input_bytes) + staged_terms_floats(C) + staged_inputs_floats(C, input_bytes) +
         channel_slice_floats(C);
}

}  // namespace flabench::rwkv7
