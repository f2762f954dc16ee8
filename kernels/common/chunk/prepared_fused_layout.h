// How the one-kernel state and output pass over prepared operands (prepared_fused_forward.cu) lays out its
// shared memory: host-safe, so that tests/kernels/prepared_fused_layout_test.cpp checks on the CPU that every
// tile starts on the 128-byte swizzle's 1024-byte pattern, that no two regions overlap and that the block
// fits an H100.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/wgmma/layout.h"

namespace flabench::chunk {

// Byte offsets from the block's 1024-byte-aligned base. A stage holds one chunk: its prepared queries (scale
// q e^{seen from the chunk's start}, rounded once) and keys (k e^{after it to the chunk's end}, two bf16
// parts), each C x K with rows tokens (the queries the K-major A of q S, the keys' parts the MN-major A of
// the state update), v (C x Vs, rows tokens: the MN-major B of the update and of A v), and the chunk's summed
// log decay per key (K floats). One buffer of the state before a chunk, S (K x Vs, rows keys: the MN-major B
// of q S), in two bf16 parts.
struct PreparedFusedLayout {
  int K, Vs;
  __host__ __device__ constexpr unsigned token_tile(int columns) const {
    return wgmma::Tile{kFusedChunk}.bytes(columns);
  }
  __host__ __device__ constexpr unsigned whole_bytes() const {
    const unsigned bytes = sizeof(float) * unsigned(K);
    return (bytes + wgmma::kGroupBytes - 1) / wgmma::kGroupBytes * wgmma::kGroupBytes;
  }
  __host__ __device__ constexpr unsigned stage_bytes() const {
    return 3 * token_tile(K) + token_tile(Vs) + whole_bytes();
  }
  __host__ __device__ constexpr unsigned queries(int stage) const { return stage * stage_bytes(); }
  // part 0 the high, 1 the low
  __host__ __device__ constexpr unsigned keys(int stage, int part) const {
    return queries(stage) + (1 + part) * token_tile(K);
  }
  __host__ __device__ constexpr unsigned values(int stage) const { return keys(stage, 1) + token_tile(K); }
  __host__ __device__ constexpr unsigned whole(int stage) const { return values(stage) + token_tile(Vs); }
  __host__ __device__ constexpr unsigned state_tile() const { return wgmma::Tile{K}.bytes(Vs); }
  __host__ __device__ constexpr unsigned state(int part) const {
    return kFusedStages * stage_bytes() + part * state_tile();
  }
  // with the room to align the base
  __host__ __device__ constexpr std::size_t bytes() const {
    return kFusedStages * stage_bytes() + 2 * state_tile() + wgmma::kGroupBytes;
  }
};

// The descriptors of the products' operands from the block's 1024-byte-aligned shared-window address `base`.
struct PreparedOperands {
  PreparedFusedLayout L;
  unsigned base;
  // the prepared queries, the A of q S: rows tokens, depth keys
  __host__ __device__ constexpr std::uint64_t queries(int stage, int step) const {
    return wgmma::k_major(base + L.queries(stage), wgmma::Tile{kFusedChunk}, 0, step);
  }
  // the prepared keys' part transposed, the (MN-major) A of the state update: keys 64 m .. 64 m + 63, depth
  // tokens
  __host__ __device__ constexpr std::uint64_t keys_transposed(int stage, int part, int m, int step) const {
    return wgmma::mn_major(base + L.keys(stage, part), wgmma::Tile{kFusedChunk}, wgmma::kRows * m, step);
  }
  // v, the (MN-major) B of the state update and of A v: depth tokens, N values
  __host__ __device__ constexpr std::uint64_t values(int stage, int step) const {
    return wgmma::mn_major(base + L.values(stage), wgmma::Tile{kFusedChunk}, 0, step);
  }
  // S's part, the (MN-major) B of q S: depth keys, N values
  __host__ __device__ constexpr std::uint64_t state(int part, int step) const {
    return wgmma::mn_major(base + L.state(part), wgmma::Tile{L.K}, 0, step);
  }
};

}  // namespace flabench::chunk
