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

// How many outputs warpgroups a block of Vs values runs, taking the chunks in turn: two at Vs = 32, where a
// block is an SM's only one and one warpgroup's chain of products, decays and stores a chunk bounded the
// kernel (kernels/notes/chunk.md, versions 76, 97 and 98), and where their two state buffers share the 64
// columns of one panel; one at Vs = 64.
__host__ __device__ constexpr int fused_output_groups(int Vs) {
  return Vs == 32 ? 2 : 1;
}
// Stages a block with `groups` outputs warpgroups rings through, and how many chunks ahead its loads run: two
// warpgroups read two chunks at once, so they take a fourth stage, and the loads wait for the release of the
// chunk two before the one they hand over (fused_roles.cuh, run_loads_ring).
__host__ __device__ constexpr int fused_stages(int groups) {
  return groups + 2;
}
__host__ __device__ constexpr int fused_loads_ahead(int groups) {
  return fused_stages(groups) - groups;
}

// Byte offsets from the block's 1024-byte-aligned base. A stage holds one chunk: q and k (C x K, K-major:
// rows are tokens), v (C x Vs, rows tokens: the MN-major B of P v) and the chunk's decays (ScalarDecays). The
// state before a chunk, S (K x Vs, rows keys: the MN-major B of q S), in two parts, in a buffer for each
// outputs warpgroup (they read it first thing in their chunk): buffer b in the state tiles' columns b Vs ..
// b Vs + Vs - 1, so that at Vs = 32 both fill one 64-column panel, which one buffer left half empty. The
// state warpgroup's own tile: v scaled by each token's decay to the chunk's end in two bf16 parts, the high
// in columns 0 .. Vs - 1 and the low in Vs .. 2 Vs - 1 (the B of the state update), which it makes from the
// stage's v after the chunk is staged (version 98: out of the stages, so that four of them fit at K = 128).
// With final_apart (the backward's dk pass: chunk_fused_forward.cu), after those the final state's gradient
// in two parts (K x Vs, as S; the high in columns 0 .. Vs - 1, the low in Vs .. 2 Vs - 1: at Vs = 32 one
// panel, so that the block fits at K = 128), and in each stage after the chunk's decays the decay from its
// end to the sequence's (in the decays' room). With dot_rows (the backward's dq and dk passes, where the
// block still fits: fused_pass_layout), v's tile also holds the chunk's rows of the dots' other operand, in
// its columns Vs .. 2 Vs - 1 (at Vs = 32 the panel's half v leaves empty), copied with the chunk, so that
// the outputs read them from shared memory.
struct FusedLayout {
  int K, Vs;
  int buffers;       // of the state: one for each outputs warpgroup
  int stages;        // (fused_layout below sets both)
  bool final_apart;  // the final state's gradient kept apart from the state
  bool dot_rows;     // the dots' rows staged with each chunk
  __host__ __device__ constexpr unsigned token_tile(int columns) const {
    return wgmma::Tile{kFusedChunk}.bytes(columns);
  }
  __host__ __device__ constexpr unsigned decay_bytes() const {
    const unsigned bytes = sizeof(float) * (scalar_decay_floats(kFusedChunk) + 1);  // (+ decay_to_last)
    return (bytes + wgmma::kGroupBytes - 1) / wgmma::kGroupBytes * wgmma::kGroupBytes;
  }
  __host__ __device__ constexpr unsigned stage_bytes() const {
    return 2 * token_tile(K) + values_tile() + decay_bytes();
  }
  // v's tile: Vs columns, and with dot_rows the dots' rows beside them
  __host__ __device__ constexpr unsigned values_tile() const { return token_tile(dot_rows ? 2 * Vs : Vs); }
  __host__ __device__ constexpr int dot_rows_column() const { return Vs; }
  __host__ __device__ constexpr unsigned q(int stage) const { return stage * stage_bytes(); }
  __host__ __device__ constexpr unsigned k(int stage) const { return q(stage) + token_tile(K); }
  __host__ __device__ constexpr unsigned v(int stage) const { return k(stage) + token_tile(K); }
  __host__ __device__ constexpr unsigned decays(int stage) const { return v(stage) + values_tile(); }
  // final_apart: the decay from the stage's chunk's end to the sequence's, a float after its decays
  __host__ __device__ constexpr unsigned decay_to_last(int stage) const {
    return decays(stage) + sizeof(float) * scalar_decay_floats(kFusedChunk);
  }
  __host__ __device__ constexpr unsigned state_tile() const { return wgmma::Tile{K}.bytes(buffers * Vs); }
  // the part's tile, every buffer's columns: 0 the high, 1 the low
  __host__ __device__ constexpr unsigned state(int part) const {
    return stages * stage_bytes() + part * state_tile();
  }
  __host__ __device__ constexpr int state_column(int buffer) const { return buffer * Vs; }
  // v e^{to the chunk's end}'s parts (C x 2 Vs), and the first column of part `part` (0 the high, 1 the low)
  __host__ __device__ constexpr unsigned decayed_values() const { return state(2); }
  __host__ __device__ constexpr int decayed_column(int part) const { return part * Vs; }
  // the final state's gradient's tile (part p's first column p Vs)
  __host__ __device__ constexpr unsigned final_state() const { return decayed_values() + token_tile(2 * Vs); }
  // with the room to align the base
  __host__ __device__ constexpr std::size_t bytes() const {
    return final_state() + (final_apart ? wgmma::Tile{K}.bytes(2 * Vs) : 0) + wgmma::kGroupBytes;
  }
};

// The plan for K keys and Vs values a block with `groups` outputs warpgroups (a state buffer each, and their
// stages); the forward's takes fused_output_groups(Vs), the state gradients' pass one.
__host__ __device__ constexpr FusedLayout fused_layout(int K, int Vs, int groups, bool final_apart = false,
                                                       bool dot_rows = false) {
  return {K, Vs, groups, fused_stages(groups), final_apart, dot_rows};
}
__host__ __device__ constexpr FusedLayout fused_layout(int K, int Vs) {
  return fused_layout(K, Vs, fused_output_groups(Vs));
}

// The most shared memory a block of an sm_90 GPU may take (every Hopper part's opt-in limit).
constexpr std::size_t kHopperSharedPerBlock = 227 * 1024;

// The plan of one of the kernel's launches: a pass with dots (dq's and dk's in the backward) stages their
// rows with each chunk wherever the block still fits an sm_90 block, so that the outputs read them from
// shared memory: read from memory at the end of each chunk, their latency was on the outputs' chain
// (skipping the dots' work took 8-15% off the fwd+bwd); staged, the fwd+bwd is 0.97-0.98x at three of the
// four fused shapes, the same at the fourth (kernels/notes/chunk.md, versions 115 and 117). Where it would
// not fit (dk's pass at K = 128 and 64 values a block), they are read from memory as before.
__host__ __device__ constexpr FusedLayout fused_pass_layout(int K, int Vs, int groups, bool final_apart,
                                                            bool dots) {
  const FusedLayout staged = fused_layout(K, Vs, groups, final_apart, true);
  return dots && staged.bytes() <= kHopperSharedPerBlock ? staged : fused_layout(K, Vs, groups, final_apart);
}

// The rows of partial dots a token gets from the backward's dq and dk passes (chunk_fused_forward.cu,
// PassExtras): one a value slice of those passes, whose values are the problem's K keys; each of the three
// dots' arrays (q . dq, k . dk and dk's final-state terms) is this many rows of T floats a head.
inline int fused_dot_slices(int heads, int K, int multiprocessors) {
  return K / fused_value_slice(heads, K, multiprocessors);
}

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
  __host__ __device__ constexpr std::uint64_t decayed_values(int part, int step) const {
    return wgmma::mn_major(base + L.decayed_values(), wgmma::Tile{kFusedChunk}, L.decayed_column(part), step);
  }
  // S's part in buffer `buffer`, the (MN-major) B of q S: depth keys, N values
  __host__ __device__ constexpr std::uint64_t state(int buffer, int part, int step) const {
    return wgmma::mn_major(base + L.state(part), wgmma::Tile{L.K}, L.state_column(buffer), step);
  }
  // the final state's gradient's part, as S's
  __host__ __device__ constexpr std::uint64_t final_state(int part, int step) const {
    return wgmma::mn_major(base + L.final_state(), wgmma::Tile{L.K}, part * L.Vs, step);
  }
};

}  // namespace flabench::chunk
