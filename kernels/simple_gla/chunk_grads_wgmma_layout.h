// How simple_gla's gradients kernel on Hopper (chunk_grads_wgmma.cu) lays out its shared memory and which
// descriptors its products read: host-safe, so that tests/kernels/scalar_grads_wgmma_test.cpp checks on the
// CPU that the tiles start on the swizzle's 1024-byte pattern and do not overlap, that the block fits an
// H100, and (emulating every product through these descriptors) that each product reads what the kernel
// stored.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/wgmma/layout.h"
#include "kernels/simple_gla/chunk_layout.h"

namespace flabench::chunk {

constexpr int kGradGroups = 3;  // warpgroups: dq, dk and dv, one each
constexpr int kGradThreads = 128 * kGradGroups;
constexpr int kGradStages = 2;  // chunks whose inputs are staged at once

// Byte offsets from the block's 1024-byte-aligned base. Two stages (a block takes chunk after chunk, the
// next one's inputs loading while it computes this one), each the chunk's q, k (C x K) and v, do (C x V) as
// token-row tiles in the 128-byte swizzle; the two bf16 parts of M = scale (do v^T) o D (its diagonal apart)
// and of A = scale (q k^T) o D (C x C, rows i, columns j); then floats: the decays of two chunks
// (ScalarDecays), the per-token partial dots of dg (TokenDots: a row of C for each warp and 64-row block of
// dq, dk and dv; S0 . dS, one a warp of dv's warpgroup) and M's diagonal; then each warpgroup's output in
// bf16 rows ([C][K + 8] or [C][V + 8]: the 16 bytes more keep 16-byte vectors of a column on different
// banks), copied to memory row by row; and the stages' copy barriers (tma.cuh).
struct GradLayout {
  int K, V;
  static constexpr int kWarps = 4;  // warps a warpgroup: each holds 16 rows of a 64-row block
  __host__ __device__ constexpr unsigned token_tile(int columns) const {
    return wgmma::Tile{kFusedChunk}.bytes(columns);
  }
  __host__ __device__ constexpr unsigned score_tile() const { return token_tile(kFusedChunk); }
  __host__ __device__ constexpr unsigned stage_bytes() const { return 2 * token_tile(K) + 2 * token_tile(V); }
  __host__ __device__ constexpr unsigned q(int stage) const { return stage * stage_bytes(); }
  __host__ __device__ constexpr unsigned k(int stage) const { return q(stage) + token_tile(K); }
  __host__ __device__ constexpr unsigned v(int stage) const { return k(stage) + token_tile(K); }
  __host__ __device__ constexpr unsigned d_o(int stage) const { return v(stage) + token_tile(V); }
  // part 0 the high, 1 the low
  __host__ __device__ constexpr unsigned m_part(int part) const {
    return kGradStages * stage_bytes() + part * score_tile();
  }
  __host__ __device__ constexpr unsigned a_part(int part) const { return m_part(2 + part); }
  // for chunks of even (parity 0) and odd place in the block's order: the next chunk's are made during this
  // one
  __host__ __device__ constexpr unsigned decays(int parity) const {
    return a_part(2) + parity * sizeof(float) * scalar_decay_floats(kFusedChunk);
  }
  __host__ __device__ constexpr int key_parts() const { return K / wgmma::kRows * kWarps; }
  __host__ __device__ constexpr int value_parts() const { return V / wgmma::kRows * kWarps; }
  __host__ __device__ constexpr unsigned dq_dots() const { return decays(2); }
  __host__ __device__ constexpr unsigned dk_dots() const {
    return dq_dots() + sizeof(float) * key_parts() * kFusedChunk;
  }
  __host__ __device__ constexpr unsigned handed_dots() const {
    return dk_dots() + sizeof(float) * key_parts() * kFusedChunk;
  }
  // S0 . dS's partials, one a warp of dv's warpgroup (which makes them)
  __host__ __device__ constexpr unsigned state_dots() const {
    return handed_dots() + sizeof(float) * value_parts() * kFusedChunk;
  }
  __host__ __device__ constexpr unsigned diagonal() const { return state_dots() + sizeof(float) * kWarps; }
  // warpgroup 0 dq, 1 dk, 2 dv; 16-byte aligned
  __host__ __device__ constexpr int out_columns(int group) const { return group < 2 ? K : V; }
  __host__ __device__ constexpr int out_ld(int group) const { return out_columns(group) + 8; }
  __host__ __device__ constexpr unsigned out_bytes(int group) const {
    return 2 * unsigned(kFusedChunk) * out_ld(group);
  }
  __host__ __device__ constexpr unsigned out(int group) const {
    const unsigned first = (diagonal() + sizeof(float) * kFusedChunk + 15) / 16 * 16;
    return first + (group >= 1 ? out_bytes(0) : 0) + (group >= 2 ? out_bytes(1) : 0);
  }
  // the mbarriers the stages' copies complete on, one a stage (8-byte aligned)
  __host__ __device__ constexpr unsigned copied(int stage) const {
    return out(2) + out_bytes(2) + sizeof(std::uint64_t) * stage;
  }
  // with the room to align the base
  __host__ __device__ constexpr std::size_t bytes() const { return copied(kGradStages) + wgmma::kGroupBytes; }
};

// The descriptors of the kernel's products from the block's 1024-byte-aligned shared-window address `base`.
// Every tile has C = 64 rows, so two forms serve all: a tile's rows as the M or N index (K-major: depth
// along a row) and its columns as the M or N index (MN-major: depth down the rows).
struct GradOperands {
  unsigned base;
  // depth step `step` of the tile at `tile` read K-major: rows 0 .. 63 (q, do as A; k, v, do as B of
  // do v^T, q k^T, S0 do^T, dS v^T and dS^T k^T; M as the B of k^T M^T, i.e. M^T)
  __host__ __device__ constexpr std::uint64_t rows(unsigned tile, int step) const {
    return wgmma::k_major(base + tile, wgmma::Tile{kFusedChunk}, 0, step);
  }
  // ... read MN-major: columns 64 block .. 64 block + 63 over depth rows 16 step .. (k^T, q^T, do^T as A;
  // M and A as the B of q^T M and do^T A)
  __host__ __device__ constexpr std::uint64_t columns(unsigned tile, int block, int step) const {
    return wgmma::mn_major(base + tile, wgmma::Tile{kFusedChunk}, wgmma::kRows * block, step);
  }
};

}  // namespace flabench::chunk
