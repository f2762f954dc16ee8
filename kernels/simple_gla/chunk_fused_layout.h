// How simple_gla's fused chunk forward on Hopper (chunk_fused_forward.cu) lays out its shared memory and
// picks its value slices: host-safe, so tests/kernels/scalar_fused_layout_test.cpp checks on the CPU that
// every tile starts on the 128-byte swizzle's 1024-byte pattern, that no two regions overlap and that the
// block fits an H100's shared memory.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/wgmma/layout.h"
#include "kernels/simple_gla/chunk_layout.h"

namespace flabench::chunk {

// Byte offsets from the block's 1024-byte-aligned base. A stage holds one chunk: q and k (C x K, K-major:
// rows are tokens), v (C x Vs, rows tokens: the MN-major B of P v), v scaled by each token's decay to the
// chunk's end in two bf16 parts (the B of the state update), and the chunk's decays (ScalarDecays). One
// buffer of the state before a chunk, S (K x Vs, rows keys: the MN-major B of q S), in two parts (the
// outputs read it first thing in their chunk; a second buffer and three stages do not fit at K = 128, and
// three stages with one buffer measured faster than two with two: kernels/notes/chunk.md, version 74).
struct FusedLayout {
  int K, Vs;
  __host__ __device__ constexpr unsigned token_tile(int columns) const {
    return wgmma::Tile{kFusedChunk}.bytes(columns);
  }
  __host__ __device__ constexpr unsigned decay_bytes() const {
    const unsigned bytes = sizeof(float) * scalar_decay_floats(kFusedChunk);
    return (bytes + wgmma::kGroupBytes - 1) / wgmma::kGroupBytes * wgmma::kGroupBytes;
  }
  __host__ __device__ constexpr unsigned stage_bytes() const {
    return 2 * token_tile(K) + 3 * token_tile(Vs) + decay_bytes();
  }
  __host__ __device__ constexpr unsigned q(int stage) const { return stage * stage_bytes(); }
  __host__ __device__ constexpr unsigned k(int stage) const { return q(stage) + token_tile(K); }
  __host__ __device__ constexpr unsigned v(int stage) const { return k(stage) + token_tile(K); }
  __host__ __device__ constexpr unsigned v_high(int stage) const { return v(stage) + token_tile(Vs); }
  __host__ __device__ constexpr unsigned v_low(int stage) const { return v_high(stage) + token_tile(Vs); }
  __host__ __device__ constexpr unsigned decays(int stage) const { return v_low(stage) + token_tile(Vs); }
  __host__ __device__ constexpr unsigned state_tile() const { return wgmma::Tile{K}.bytes(Vs); }
  // part 0 the high, 1 the low
  __host__ __device__ constexpr unsigned state(int part) const {
    return kFusedStages * stage_bytes() + part * state_tile();
  }
  // with the room to align the base
  __host__ __device__ constexpr std::size_t bytes() const {
    return kFusedStages * stage_bytes() + 2 * state_tile() + wgmma::kGroupBytes;
  }
};

// The descriptors of every product's operands, from the block's 1024-byte-aligned shared-window address
// `base` (the kernel's products and the CPU test that emulates them take the same ones). The trans flag each
// product passes is its operand's majorness: q and k K-major as rows, the rest MN-major.
struct FusedOperands {
  FusedLayout L;
  unsigned base;
  // q, the A of q k^T and q S: rows tokens, depth keys
  __host__ __device__ constexpr std::uint64_t queries(int stage, int step) const {
    return wgmma::k_major(base + L.q(stage), wgmma::Tile{kFusedChunk}, 0, step);
  }
  // k, the B of q k^T: N tokens, depth keys
  __host__ __device__ constexpr std::uint64_t keys(int stage, int step) const {
    return wgmma::k_major(base + L.k(stage), wgmma::Tile{kFusedChunk}, 0, step);
  }
  // k^T, the (MN-major) A of the state update: keys 64 m .. 64 m + 63, depth tokens
  __host__ __device__ constexpr std::uint64_t keys_transposed(int stage, int m, int step) const {
    return wgmma::mn_major(base + L.k(stage), wgmma::Tile{kFusedChunk}, wgmma::kRows * m, step);
  }
  // v, the (MN-major) B of P v: depth tokens, N values
  __host__ __device__ constexpr std::uint64_t values(int stage, int step) const {
    return wgmma::mn_major(base + L.v(stage), wgmma::Tile{kFusedChunk}, 0, step);
  }
  // v e^{to the chunk's end}'s part (0 high, 1 low), the (MN-major) B of the state update
  __host__ __device__ constexpr std::uint64_t decayed_values(int stage, int part, int step) const {
    return wgmma::mn_major(base + (part ? L.v_low(stage) : L.v_high(stage)), wgmma::Tile{kFusedChunk}, 0,
                           step);
  }
  // S's part, the (MN-major) B of q S: depth keys, N values
  __host__ __device__ constexpr std::uint64_t state(int part, int step) const {
    return wgmma::mn_major(base + L.state(part), wgmma::Tile{L.K}, 0, step);
  }
};

}  // namespace flabench::chunk
