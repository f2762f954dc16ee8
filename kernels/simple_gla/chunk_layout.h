// How simple_gla's scalar-gate output kernel (chunk_forward.cuh) shares a chunk among warps and lays out its
// shared memory: host-safe (no device code), so tests/kernels/scalar_chunk_layout_test.cpp checks on the CPU
// that every chunk size and head dim the path takes gets whole 16-value strips, conflict-free ldmatrix rows
// and a block that fits the GPUs the suite targets.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>

#include "kernels/common/chunk/block_shapes.h"

namespace flabench::chunk {

constexpr int kScalarStrip = 16;    // values to a warp: one m16 strip of o^T
constexpr int kScalarMaxWarps = 8;  // 128 values to a block: A is built once per chunk at V = 128

// Floats of one warp's chunk decays (ScalarDecays): five per token, a sub-chunk pair table, e^{chunk total}.
__host__ __device__ constexpr int scalar_decay_floats(int C) {
  constexpr int subs = kMaxChunk / kSubChunk;
  return 5 * C + subs * subs + 4;
}

// Shared memory of the output kernel, in bf16 elements unless said: the chunk's q, k ([C][K + 8]) and v
// ([C][16 W + 8]; rows of an odd number of 16-byte vectors keep ldmatrix's 8 rows on distinct banks), A's
// two planes ([C][C + 8]), then the chunk's decays (floats).
struct ScalarLayout {
  int C, K, W;
  __host__ __device__ int ldK() const { return K + 8; }
  __host__ __device__ int ldV() const { return kScalarStrip * W + 8; }
  __host__ __device__ int ldC() const { return C + 8; }
  __host__ __device__ int inputs() const { return 2 * C * ldK() + C * ldV(); }
  __host__ __device__ int planes() const { return 2 * C * ldC(); }
  __host__ __device__ std::size_t bytes() const {
    return 2 * std::size_t(inputs() + planes()) + sizeof(float) * scalar_decay_floats(C);
  }
};

// The gradients kernel (chunk_backward.cuh): four warps a chunk, taking its 16-row strips of M and A, then
// 16-column blocks of dq, dk and dv, in turn.
constexpr int kScalarGradWarps = 4;

// Its shared memory, in bf16 elements unless said: the chunk's q, k ([C][K + 8]), v and do ([C][V + 8]), the
// two parts of M and of A ([C][C + 8] each), then floats: the chunk's decays and per-token sums
// (ScalarGradSums: M's diagonal, one dot per token and 16-column block of dq, dk and dv, one per warp).
struct ScalarGradLayout {
  int C, K, V;
  __host__ __device__ int ldK() const { return K + 8; }
  __host__ __device__ int ldV() const { return V + 8; }
  __host__ __device__ int ldC() const { return C + 8; }
  __host__ __device__ std::size_t bytes() const {
    return 2 * std::size_t(2 * C * ldK() + 2 * C * ldV() + 4 * C * ldC()) +
           sizeof(float) * (scalar_decay_floats(C) + C * (1 + 2 * (K / 16) + V / 16) + kScalarGradWarps);
  }
};

// Warps to an output block: 16 values each, as many as divide V, up to 8. V must be a multiple of 16.
inline ScalarLayout scalar_layout(int C, int K, int V) {
  int W = kScalarMaxWarps;
  while (V % (kScalarStrip * W) != 0) W /= 2;
  return {C, K, W};
}

}  // namespace flabench::chunk
