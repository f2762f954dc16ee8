// How gla's and rwkv6's fused chunk forward on Hopper (per_key_fused_forward.cu) lays out its shared memory:
// host-safe, so that tests/kernels/per_key_fused_layout_test.cpp checks on the CPU that every tile starts on
// the 128-byte swizzle's 1024-byte pattern, that no two regions overlap and that the block fits an H100.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/wgmma/layout.h"

namespace flabench::chunk {

constexpr int kFusedSubs = kFusedChunk / kSubChunk;  // a chunk's 16-token sub-chunks: one an outputs warp

// The tables the loads warpgroup makes from a chunk's log decays, rows of K floats (then ints: the steep
// channels' lists). Every exponent in them is a sum of sub-chunk sums, never positive but the
// diagonal's e^{-total}, which exists only where total >= -kFactorLimit (intra_chunk.cuh).
struct PerKeyTables {
  enum Row : int {
    prefix_factor = 0,                            // [I]: e^{decay of the sub-chunks before I}
    after_factor = prefix_factor + kFusedSubs,    // [I]: e^{decay of the sub-chunks after I}
    diagonal_factor = after_factor + kFusedSubs,  // [I]: e^{-total_I} where gentle, else 0
    far_factor = diagonal_factor + kFusedSubs,    // [far_pair_index(I, J)]: e^{between J and I}
    whole_factor = far_factor + (kFusedSubs - 1) * (kFusedSubs - 2) / 2,  // e^{the chunk's decay}
    total = whole_factor + 1,    // [I]: the sub-chunk's decay (an exponent)
    bonus = total + kFusedSubs,  // rwkv6's q_i . (u o k_i): C floats, not K
    rows = bonus + 1             // with C <= K
  };
  static_assert(kFusedChunk <= 64, "the bonus row holds a chunk's tokens in K >= 64 floats");
  int K;
  __host__ __device__ constexpr unsigned float_bytes() const { return unsigned(rows) * K * sizeof(float); }
  // A warp of the loads lists the steep channels among its 64 (K = 128: two warps a sub-chunk, parts 0 and 1;
  // K = 64: one), each list in its own place, so their order is the same at every call. The ints after the
  // floats: steep_count[I][part], then steep[I][K] (part p's channels from 64 p).
  static constexpr int kListParts = 2;
  static constexpr int kListStride = 64;
  __host__ __device__ constexpr unsigned bytes() const {
    return float_bytes() + unsigned(kFusedSubs * (kListParts + K)) * sizeof(int);
  }
};

// Byte offsets from the block's 1024-byte-aligned base. A stage holds one chunk in 128-byte-swizzled token
// tiles (rows tokens): q e^{seen within its sub-chunk} in two bf16 parts (the A fragments of the intra-chunk
// scores and of q S), k e^{decay after it to its sub-chunk's end} in two parts (the B fragments of the
// scores, the A of the state update), v (the MN-major B of P v and of the update), and the tables. The copies
// land in the same room: the raw q in q's low part, the raw k in k's low part, the log decays in q's high
// part, each read out before its room is written (the loads' barrier between). One buffer of the state before
// a chunk, S (K x Vs, rows keys: the MN-major B of q S) in two parts. Then rwkv6's bonus weights u (K
// floats).
struct PerKeyFusedLayout {
  int K, Vs;
  __host__ __device__ static constexpr unsigned aligned(unsigned bytes) {
    return (bytes + wgmma::kGroupBytes - 1) / wgmma::kGroupBytes * wgmma::kGroupBytes;
  }
  __host__ __device__ constexpr unsigned token_tile(int columns) const {
    return wgmma::Tile{kFusedChunk}.bytes(columns);
  }
  __host__ __device__ constexpr unsigned stage_bytes() const {
    return 4 * token_tile(K) + token_tile(Vs) + aligned(PerKeyTables{K}.bytes());
  }
  // part 0 the high, 1 the low
  __host__ __device__ constexpr unsigned queries(int stage, int part) const {
    return stage * stage_bytes() + part * token_tile(K);
  }
  __host__ __device__ constexpr unsigned keys(int stage, int part) const {
    return queries(stage, 0) + (2 + part) * token_tile(K);
  }
  __host__ __device__ constexpr unsigned values(int stage) const {
    return queries(stage, 0) + 4 * token_tile(K);
  }
  __host__ __device__ constexpr unsigned tables(int stage) const { return values(stage) + token_tile(Vs); }
  __host__ __device__ constexpr unsigned state_tile() const { return wgmma::Tile{K}.bytes(Vs); }
  __host__ __device__ constexpr unsigned state(int part) const {
    return kFusedStages * stage_bytes() + part * state_tile();
  }
  __host__ __device__ constexpr unsigned bonus_weights() const { return state(2); }
  // with the room to align the base
  __host__ __device__ constexpr std::size_t bytes() const {
    return bonus_weights() + aligned(unsigned(K) * sizeof(float)) + wgmma::kGroupBytes;
  }
};

// The descriptors of the products whose operands the kernel reads from shared memory by descriptor (the rest
// are fragments: ldmatrix, then registers), from the block's aligned shared-window address `base`.
struct PerKeyOperands {
  PerKeyFusedLayout L;
  unsigned base;
  // v, the (MN-major) B of P v and of the state update: depth tokens 16 step .., N values
  __host__ __device__ constexpr std::uint64_t values(int stage, int step) const {
    return wgmma::mn_major(base + L.values(stage), wgmma::Tile{kFusedChunk}, 0, step);
  }
  // S's part, the (MN-major) B of q S: depth keys 16 step .., N values
  __host__ __device__ constexpr std::uint64_t state(int part, int step) const {
    return wgmma::mn_major(base + L.state(part), wgmma::Tile{L.K}, 0, step);
  }
};

// The keys a head has where the kernel runs: at K = 128 a block of 64 values needed more than the 168
// registers a thread 384 threads may have (ptxas spilled 28 bytes), and blocks of 32 values measured slower
// than the two-kernel forward (kernels/notes/chunk.md, version 72). The layout and the loads' items stay
// written for any K that is a multiple of 64 (the layout test covers 128), which a version at K = 128 that
// pays would take up (with fewer than kFusedStages stages: three do not fit there).
constexpr int kFusedKeys = 64;

}  // namespace flabench::chunk
