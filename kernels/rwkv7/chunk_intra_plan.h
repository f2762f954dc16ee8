// The sizes of rwkv7 chunk's tensor-core intra kernel (chunk_intra_mma.cuh) as the host plans them: its
// shared memory and the blocks an SM it is built for. Host-safe, so
// tests/kernels/rwkv7_chunk_intra_plan_test.cpp checks on the CPU that the peer shapes' blocks share an SM as
// measured.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include "kernels/rwkv7/chunk_workspace.h"

namespace flabench::rwkv7 {

constexpr int kMmaSliceKeys = 16;                          // keys a slice: one k-step of mma.sync
constexpr int kStagedRow = kMmaSliceKeys + 1;              // fp32 [token][key]: l
constexpr int kOperandRow = padded_row(kMmaSliceKeys, 2);  // 16-bit [token][key]: inputs and operand planes
enum Input { kQ, kK, kA, kB, kW, kInputs };                // the inputs a slice stages, in this order
__host__ __device__ constexpr int ag_row(int K) {
  return K + 8;  // a e^{Γe} as fp32 [C][K + 8]: fragment reads of 8 rows a quad apart on distinct banks
}
// Buffers of raw inputs: two (the next slice's copied while this one is used) but at C = 64, where a second
// would leave a block an SM at K = 128 (the copies then wait at each slice's start).
__host__ __device__ constexpr int raw_buffers(int C) {
  return C == kMaxChunk ? 1 : 2;
}
__host__ __device__ constexpr int far_pairs(int C) {
  return (C / 16 - 1) * (C / 16 - 2) / 2;  // sub-chunk pairs (I, J < I - 1)
}

// The region after a e^{Γe} that the slices use, then the pair matrices (IntraMmaShared).
__host__ __device__ constexpr int intra_slice_bytes(int C) {
  const int raw = 2 * raw_buffers(C) * kInputs * C * kOperandRow;  // 16-bit inputs
  const int staged = 4 * (C * kStagedRow + (C / 16) * kMmaSliceKeys);
  const int planes = 2 * 2 * (6 * C + 2 * 16 * far_pairs(C)) * kOperandRow;
  return raw + staged + planes;
}
__host__ __device__ constexpr int intra_pair_bytes(int C) {
  return 4 * 4 * C * (C + 1);  // A_ak, A_ab, A_qk (then X), A_qb (then the inverse's scratch), fp32
}
// The tail's operands after the pair matrices where the slices' room holds them (tail_planes): X and X A_ak
// as two bf16 planes [2][C][C + 8] each, from intra_pair_bytes(C), then v as bf16 [C][V + 8], from
// intra_tail_v_at(C) (bytes from the pair matrices' start).
__host__ __device__ constexpr int intra_tail_v_at(int C) {
  return intra_pair_bytes(C) + 2 * 2 * 2 * C * padded_row(C, 2);
}
__host__ __device__ constexpr int intra_tail_bytes(int C, int V) {
  return intra_tail_v_at(C) + 2 * C * padded_row(V, 2);
}
// Whether the tail reads X and X A_ak as planes (ldmatrix) and v staged: chunk sizes up to 32, where the
// slices leave room for them at every V the variant takes (up to 128; C = 64's pair matrices fill it).
__host__ __device__ constexpr bool tail_planes(int C) {
  return C <= 32;
}

// The shared memory a block takes (chunk_intra_mma.cuh's IntraMmaShared lays it out).
__host__ __device__ constexpr int intra_mma_shared_bytes(int C, int K) {
  const int slices = intra_slice_bytes(C), products = intra_pair_bytes(C);
  return 4 * C * ag_row(K) + (slices > products ? slices : products);
}

// Tensor-core intra needs this many blocks an SM to hide its barriers; registers follow (no spills at these).
constexpr int intra_mma_blocks_per_sm(int C) {
  return C == kMaxChunk ? 2 : 4;
}

}  // namespace flabench::rwkv7
