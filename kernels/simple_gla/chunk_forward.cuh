// simple_gla's chunk forward where its gate pays (bf16): one log decay per head and token, so a chunk's
// decays are C scalars, every product takes the 16-bit inputs as they are and the decays go onto fp32
// accumulators or onto operands in registers, never onto staged per-channel copies. Three kernels:
//   factors  per chunk, in parallel: e^{decay after each token to the chunk's end} and e^{chunk total};
//   scan     the general chunk scan (scan.cuh) with k as its operand, each token's row times its factor in
//            two bf16 parts: S before every chunk (fp32), no prepared operand;
//   outputs  per (chunk, up to 128 values), in parallel:
//              A   = (q k^T) o e^{G_i - G_j} for j <= i  (shared memory, two bf16 planes: ~16 bits)
//              o^T = scale ((S^T q^T) e^{G_i} + v^T A^T)  S^T from the saved fp32 state, in two parts.
// A forward that saves for a backward the general kernels will run (chunk.cu decides) makes the general
// prepare's keys and decays and the general scan's states instead (that backward reads them).
// Exponents are sums of log decays within 16-token sub-chunks and of sub-chunk totals, never the difference
// of two chunk-long sums, and never positive (kernels/notes/chunk.md, design 2). bf16 only: fp16 and fp32
// take the general chunk path (kernels/notes/chunk.md, version 32, says why).
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/scan.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/simple_gla/chunk_layout.h"

namespace flabench::chunk {

// A chunk's decays in shared memory (chunk_scalar_decays writes them), per token: the log decay summed
// within its sub-chunk up to it (local), e^{local}, e^{sum after it to its sub-chunk's end}, e^{seen from the
// chunk's start} and e^{to the chunk's end}; per pair of sub-chunks si > sj, e^{sum of the sub-chunks
// between}; e^{chunk total}.
struct ScalarDecays {
  static constexpr int kSubs = kMaxChunk / kSubChunk;
  float *local, *e_local, *e_after, *seen, *to_end, *e_between, *e_whole;
  __host__ __device__ static constexpr int floats(int C) { return scalar_decay_floats(C); }
  __device__ static ScalarDecays carve(float* base, int C) {
    return {
        base, base + C, base + 2 * C, base + 3 * C, base + 4 * C, base + 5 * C, base + 5 * C + kSubs * kSubs};
  }
  // e^{decay from just after token j to token i} (j <= i): within a sub-chunk the exponential of a difference
  // of two 16-token sums, across sub-chunks a product of factors <= 1 (never e^{-G_j} alone, which
  // overflows)
  __device__ float factor(int i, int j) const {
    const int si = i / kSubChunk, sj = j / kSubChunk;
    if (si == sj) return exp_flushed(fminf(local[i] - local[j], 0.0f));
    return e_local[i] * e_between[si * kSubs + sj] * e_after[j];
  }
};

// The warp sums its chunk's log decays (g0: token lane's, g1: token lane + 32's; zero past the sequence):
// 16-lane scans within each sub-chunk, both ways, then the totals' prefixes and suffixes.
__device__ inline void scan_scalar_decays(const ScalarDecays& dec, int C, float g0, float g1) {
  constexpr int kSubs = ScalarDecays::kSubs;
  const int lane = threadIdx.x & 31, in_sub = lane & 15;
  float local[2] = {g0, g1}, after[2] = {g0, g1};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int o = 1; o < kSubChunk; o <<= 1) {
      const float below = __shfl_up_sync(fused::kFullWarp, local[h], o, kSubChunk);
      const float above = __shfl_down_sync(fused::kFullWarp, after[h], o, kSubChunk);
      if (in_sub >= o) local[h] += below;
      if (in_sub + o < kSubChunk) after[h] += above;
    }
    // inclusive suffix -> the sum strictly after the token
    const float next = __shfl_down_sync(fused::kFullWarp, after[h], 1, kSubChunk);
    after[h] = in_sub + 1 < kSubChunk ? next : 0.0f;
  }
  const int subs = C / kSubChunk;
  float total[kSubs];
#pragma unroll
  for (int s = 0; s < kSubs; ++s) {
    total[s] = __shfl_sync(fused::kFullWarp, local[s / 2], (s % 2) * 16 + 15);
    if (s >= subs) total[s] = 0;
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int t = lane + 32 * h, sub = t / kSubChunk;
    if (t >= C) continue;
    float seen = local[h], to_end = after[h];
#pragma unroll
    for (int s = 0; s < kSubs; ++s) {
      if (s < sub) seen += total[s];
      if (s > sub) to_end += total[s];
    }
    dec.local[t] = local[h];
    dec.e_local[t] = exp_flushed(local[h]);
    dec.e_after[t] = exp_flushed(after[h]);
    dec.seen[t] = exp_flushed(seen);
    dec.to_end[t] = exp_flushed(to_end);
  }
  if (lane < kSubs * kSubs) {  // lane = si * kSubs + sj
    const int si = lane / kSubs, sj = lane % kSubs;
    float sum = 0;
#pragma unroll
    for (int s = 0; s < kSubs; ++s)
      if (sj < s && s < si) sum += total[s];
    dec.e_between[lane] = exp_flushed(sum);
  }
  if (lane == 0) {
    float whole = 0;
#pragma unroll
    for (int s = 0; s < kSubs; ++s) whole += total[s];
    *dec.e_whole = exp_flushed(whole);
  }
  __syncwarp();
}

// A gate's load issued where it stands: asm volatile keeps it in program order with the staging's copies
// (asm too), where the compiler moved it after them and it queued behind them (kernels/notes/chunk.md,
// version 105).
__device__ inline __nv_bfloat16 load_gate(const __nv_bfloat16* at) {
  unsigned short x;
  asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(x) : "l"(at));
  return __ushort_as_bfloat16(x);
}

// The log decays of tokens t0 + lane and t0 + lane + 32 as loaded (zero past the chunk or the sequence),
// converted where they are used: nothing here waits for the loads, so a caller may keep them in flight (the
// fused forward's loads ring converts them kAhead chunks later).
template <int C>
__device__ void load_scalar_gates(const Pointers<__nv_bfloat16>& p, const Dims& d, int b, int h, int t0,
                                  __nv_bfloat16 (&g)[2]) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const int t = lane + 32 * e;
    g[e] = __ushort_as_bfloat16(0);
    if (t < C && t0 + t < d.T) g[e] = load_gate(p.g + d.row(b, h, t0 + t));
  }
}

// Warp 0 of the block (one warp's worth of work) writes the decays of the chunk from t0 into dec; the
// caller synchronises before the other warps read them.
template <int C>
__device__ void chunk_scalar_decays(const ScalarDecays& dec, const Pointers<__nv_bfloat16>& p, const Dims& d,
                                    int b, int h, int t0) {
  if (threadIdx.x >= 32) return;
  __nv_bfloat16 g[2];
  load_scalar_gates<C>(p, d, b, h, t0, g);
  scan_scalar_decays(dec, C, to_float(g[0]), to_float(g[1]));
}

// The block stages tokens t0 .. t0 + C of q, k and of its values by cp.async (rows past the sequence's end as
// zeros) and commits them as one group. Each thread's rows step by a constant: 32-bit offsets from the
// chunk's first row.
template <int C, int K>
__device__ void stage_scalar_inputs(const Pointers<__nv_bfloat16>& p, const Dims& d, const ScalarLayout& L,
                                    __nv_bfloat16* q, __nv_bfloat16* k, __nv_bfloat16* v, int b, int h,
                                    int t0, int v0) {
  constexpr int kVec = 8, kRowVectors = K / kVec;
  const int length = min(C, d.T - t0), value_vectors = kScalarStrip * L.W / kVec;
  const std::int64_t first = d.row(b, h, t0);
  const __nv_bfloat16 *q_rows = p.q + first * K, *k_rows = p.k + first * K, *v_rows = p.v + first * d.V + v0;
  for (int idx = threadIdx.x; idx < C * kRowVectors; idx += blockDim.x) {
    const int t = idx / kRowVectors, c = idx % kRowVectors * kVec, at = t * d.H * K + c;
    if (t < length) {
      cp_async(q + t * L.ldK() + c, q_rows + at, 16);
      cp_async(k + t * L.ldK() + c, k_rows + at, 16);
    } else {
      *reinterpret_cast<uint4*>(q + t * L.ldK() + c) = uint4{0, 0, 0, 0};
      *reinterpret_cast<uint4*>(k + t * L.ldK() + c) = uint4{0, 0, 0, 0};
    }
  }
  for (int idx = threadIdx.x; idx < C * value_vectors; idx += blockDim.x) {
    const int t = idx / value_vectors, c = idx % value_vectors * kVec;
    if (t < length)
      cp_async(v + t * L.ldV() + c, v_rows + t * d.H * d.V + c, 16);
    else
      *reinterpret_cast<uint4*>(v + t * L.ldV() + c) = uint4{0, 0, 0, 0};
  }
  cp_async_commit();
}

// grid (B H, chunks), one warp: the scan's factors of every chunk (kFactorRow floats a chunk), for the
// forward's scan of k (kKeys: e^{decay after the token to the chunk's end}) or the backward's of q (scale
// e^{decay seen from the chunk's start}), then e^{the chunk's total}.
template <int C, bool kKeys>
__global__ void __launch_bounds__(32)
    scalar_factors_kernel(Pointers<__nv_bfloat16> p, Dims d, float* factors) {
  __shared__ float room[ScalarDecays::floats(kMaxChunk)];
  const ScalarDecays dec = ScalarDecays::carve(room, C);
  const int bh = blockIdx.x, n = blockIdx.y;
  chunk_scalar_decays<C>(dec, p, d, bh / d.H, bh % d.H, n * C);
  float* row = factors + (std::int64_t(bh) * d.chunks() + n) * kFactorRow;
  for (int t = threadIdx.x; t < C; t += 32) row[t] = kKeys ? dec.to_end[t] : d.scale * dec.seen[t];
  if (threadIdx.x == 0) row[kMaxChunk] = *dec.e_whole;
}

// S^T's fragment for keys 16s .. 16s + 15 and the warp's values (rows m0 .. m0 + 15 of the block's), read
// from a saved fp32 state [K][V] (`state` at the block's first value) and split into two bf16 parts.
__device__ inline void state_fragment(const float* state, int V, int m0, int s, std::uint32_t (&af)[2][4]) {
  const Lane lane;
  const float* top = state + std::int64_t(16 * s + 2 * lane.pair) * V + m0 + lane.group;
  float x[8];
#pragma unroll
  for (int r = 0; r < 4; ++r) {  // registers: (row, key) = (g, 2p), (g + 8, 2p), (g, 2p + 8), (g + 8, 2p + 8)
    const float* at = top + (r % 2) * 8 + (r / 2) * 8 * V;
    x[2 * r] = at[0];
    x[2 * r + 1] = at[V];
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const Parts<__nv_bfloat16> parts = split<__nv_bfloat16>(x[2 * r], x[2 * r + 1]);
    af[0][r] = parts.high, af[1][r] = parts.low;
  }
}

// A's strips for the chunk's `length` tokens, shared among the block's W warps (strip i: rows 16i .. 16i +
// 15, columns up to its diagonal; zeros above it), into two bf16 planes [C][ldC].
template <int C, int K>
__device__ void scalar_scores(const __nv_bfloat16* q, const __nv_bfloat16* k, int ldK,
                              const ScalarDecays& dec, int length, __nv_bfloat16* A_high,
                              __nv_bfloat16* A_low, int ldC) {
  using Op = __nv_bfloat16;
  constexpr int kTokenTiles = C / 8, kStrips = C / kSubChunk;
  const int warp = threadIdx.x / 32, W = blockDim.x / 32;
  for (int strip = warp; strip < kStrips; strip += W) {
    float acc[kTokenTiles][4] = {};
    const int tiles = 2 * strip + 2;
#pragma unroll
    for (int k0 = 0; k0 < K; k0 += 16) {
      std::uint32_t af[4];
      a_stored_mk<Op>(af, q, ldK, strip * kSubChunk, k0);
      mma_b_stored_nk<Op>(acc, tiles, af, k, ldK, k0, 0);
    }
    for_each_pair(acc, tiles, strip * kSubChunk, 0, [&](int i, int j, float& first, float& second) {
      const bool row = i < length;
      first = row && j <= i ? first * dec.factor(i, j) : 0.0f;
      second = row && j + 1 <= i ? second * dec.factor(i, j + 1) : 0.0f;
      const Parts<Op> parts = split<Op>(first, second);
      *reinterpret_cast<std::uint32_t*>(A_high + i * ldC + j) = parts.high;
      *reinterpret_cast<std::uint32_t*>(A_low + i * ldC + j) = parts.low;
    });
  }
}

// o^T for the warp's 16 values, the state's part: (S^T q^T) e^{seen}, S^T's fragments from the saved state.
template <int C, int K>
__device__ void scalar_state_outputs(float (&o)[C / 8][4], const float* state, int V, const __nv_bfloat16* q,
                                     int ldK, int m0, const ScalarDecays& dec) {
  constexpr int kTokenTiles = C / 8;
#pragma unroll
  for (int x = 0; x < kTokenTiles; ++x) o[x][0] = o[x][1] = o[x][2] = o[x][3] = 0;
#pragma unroll
  for (int s = 0; s < K / 16; ++s) {
    std::uint32_t af[2][4];
    state_fragment(state, V, m0, s, af);
    mma_b_stored_nk<__nv_bfloat16>(o, 0, kTokenTiles, af, q, ldK, 16 * s, 0);
  }
  for_each_pair(o, kTokenTiles, 0, 0, [&](int, int i, float& first, float& second) {
    first *= dec.seen[i];
    second *= dec.seen[i + 1];
  });
}

// ... and the chunk's own part: + v^T A^T (rows m0 .. m0 + 15 of v's columns; A's tiles at or below the
// diagonal only).
template <int C>
__device__ void scalar_intra_outputs(float (&o)[C / 8][4], const __nv_bfloat16* v, int ldV, int m0,
                                     const __nv_bfloat16* A_high, const __nv_bfloat16* A_low, int ldC) {
#pragma unroll
  for (int s = 0; s < C / kSubChunk; ++s) {
    std::uint32_t af[1][4];
    a_stored_km<__nv_bfloat16>(af[0], v, ldV, m0, s * kSubChunk);
    mma_b_stored_nk<__nv_bfloat16>(o, 2 * s, C / 8, af, A_high, ldC, s * kSubChunk, 0);
    mma_b_stored_nk<__nv_bfloat16>(o, 2 * s, C / 8, af, A_low, ldC, s * kSubChunk, 0);
  }
}

// scale o^T into o's rows of tokens t0 .. t0 + length, the warp's 16 values from column v0.
template <int C>
__device__ void store_scalar_outputs(float (&o)[C / 8][4], const Pointers<__nv_bfloat16>& p, const Dims& d,
                                     int b, int h, int t0, int length, int v0) {
  __nv_bfloat16* out = p.o + d.row(b, h, t0) * d.V + v0;
  const std::int64_t token_stride = std::int64_t(d.H) * d.V;
  for_each_pair(o, C / 8, 0, 0, [&](int value, int i, float& first, float& second) {
    if (i < length) out[i * token_stride + value] = __float2bfloat16(d.scale * first);
    if (i + 1 < length) out[(i + 1) * token_stride + value] = __float2bfloat16(d.scale * second);
  });
}

// grid (B H, chunks, V / (16 W)), 32 W threads, L.bytes() of shared memory: one chunk's outputs for 16 W
// values from the state before it (fp32 [K][V] per chunk, as the scan saves it).
template <int C, int K>
__global__ void __launch_bounds__(32 * kScalarMaxWarps)
    scalar_chunk_output_kernel(Pointers<__nv_bfloat16> p, Dims d, const float* states, ScalarLayout L) {
  using Op = __nv_bfloat16;
  extern __shared__ float smem[];
  Op *q = reinterpret_cast<Op*>(smem), *k = q + C * L.ldK(), *v = k + C * L.ldK();
  Op *A_high = v + C * L.ldV(), *A_low = A_high + C * L.ldC();
  const int warp = threadIdx.x / 32;
  const ScalarDecays dec = ScalarDecays::carve(reinterpret_cast<float*>(A_high + L.planes()), C);
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, t0 = n * C,
            length = min(C, d.T - t0), v_block = blockIdx.z * kScalarStrip * L.W, m0 = warp * kScalarStrip;
  stage_scalar_inputs<C, K>(p, d, L, q, k, v, b, h, t0, v_block);
  chunk_scalar_decays<C>(dec, p, d, b, h, t0);
  cp_async_wait<0>();
  __syncthreads();  // the inputs and the decays
  const float* state = states + (std::int64_t(bh) * d.chunks() + n) * K * d.V + v_block;
  float o[C / 8][4];
  scalar_state_outputs<C, K>(o, state, d.V, q, L.ldK(), m0, dec);
  scalar_scores<C, K>(q, k, L.ldK(), dec, length, A_high, A_low, L.ldC());
  __syncthreads();
  scalar_intra_outputs<C>(o, v, L.ldV(), m0, A_high, A_low, L.ldC());
  store_scalar_outputs<C>(o, p, d, b, h, t0, length, v_block + m0);
}

}  // namespace flabench::chunk
