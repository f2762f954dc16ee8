// simple_gla's chunk backward where its gate pays (bf16): the state gradients by the scalar-gate scan in
// reverse (scan.cuh: q scaled by scale e^{seen} per token in registers), then one kernel per chunk for dq,
// dk, dv and dg, every product from the 16-bit inputs as they are and the decays on accumulators or on one
// operand's rows in registers. With D_ij = e^{G_i - G_j} (j <= i), S0 the state before the chunk and dS the
// gradient of the state after it (both fp32, in two bf16 parts for the products):
//   dA = do v^T,  M = scale dA o D (M's diagonal kept apart),  A = scale (q k^T) o D
//   dq = scale e^{G_i} do S0^T + M k                 dk = M^T q + e^{G_C - G_j} v dS^T
//   dv = A^T do + e^{G_C - G_j} k dS
//   dg_t = e^{G_C} S0 . dS + sum_{s < t} k_s . dk_s^handed + sum_{s >= t} (q_s . dq_s - k_s . dk_s)
// the last two without the terms through no decay (M's diagonal: they cancel exactly, and at log decays of
// -40, where the rest is ~e^-40, fp32 would leave their O(1e-7) rounding; kernels/notes/chunk.md, version 0).
// Four warps take the chunk's 16-row strips of M and A, then 16-column blocks of dq, dk and dv over all of
// the chunk's rows: a block's fragments of S0 or dS are read and split once (row strips re-read them per
// strip: kernels/notes/chunk.md, version 33).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/scan.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/simple_gla/chunk_forward.cuh"
#include "kernels/simple_gla/chunk_layout.h"

namespace flabench::chunk {

// The block stages `rows` token rows of 16-bit values of one tensor, or two alike (row t of each at src +
// t * token_stride; `vectors` 16-byte vectors a row, or kVectors where the caller knows it at compile time)
// into dst + t * ld by cp.async, rows from `length` on as zeros; the caller commits the group. second_dst
// null: one tensor.
template <int kVectors = 0>
__device__ __forceinline__ void stage_token_rows(__nv_bfloat16* dst, const __nv_bfloat16* src,
                                                 __nv_bfloat16* second_dst, const __nv_bfloat16* second_src,
                                                 int ld, int token_stride, int length, int rows,
                                                 int vectors = kVectors) {
  constexpr int kVec = 8;
  if constexpr (kVectors > 0) vectors = kVectors;
  for (int idx = threadIdx.x; idx < rows * vectors; idx += blockDim.x) {
    const int t = idx / vectors, c = idx % vectors * kVec, to = t * ld + c, from = t * token_stride + c;
    if (t < length) {
      cp_async(dst + to, src + from, 16);
      if (second_dst) cp_async(second_dst + to, second_src + from, 16);
    } else {
      *reinterpret_cast<uint4*>(dst + to) = uint4{0, 0, 0, 0};
      if (second_dst) *reinterpret_cast<uint4*>(second_dst + to) = uint4{0, 0, 0, 0};
    }
  }
}

// An fp32 matrix X (row-major, `ld` floats a row) as the tensor cores' B operand B[k][n], in two bf16 parts:
// B = X^T (kTransposed: B[k][n] = X[n][k], a lane's pair of k neighbours in one row) or B = X.
template <bool kTransposed>
__device__ void fp32_b_fragment(const float* X, int ld, int k0, int n0, std::uint32_t (&high)[2],
                                std::uint32_t (&low)[2]) {
  const Lane lane;
  const int n = n0 + lane.group;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int k = k0 + 2 * lane.pair + 8 * r;
    float2 x;
    if constexpr (kTransposed)
      x = *reinterpret_cast<const float2*>(X + std::int64_t(n) * ld + k);
    else
      x = make_float2(X[std::int64_t(k) * ld + n], X[std::int64_t(k + 1) * ld + n]);
    const Parts<__nv_bfloat16> parts = split<__nv_bfloat16>(x.x, x.y);
    high[r] = parts.high, low[r] = parts.low;
  }
}

// acc[strip] (two 8-column tiles for each of the chunk's 16-row strips) += A B over k0 < depth: A the strips
// of a 16-bit tile `a` ([C][lda]), B fp32 X as fp32_b_fragment reads it (ldX floats a row), in two parts,
// each of its fragments read and split once for all strips.
template <bool kTransposed, int kStrips>
__device__ void mma_strips_fp32_b(float (&acc)[kStrips][2][4], const __nv_bfloat16* a, int lda,
                                  const float* X, int ldX, int depth) {
  for (int k0 = 0; k0 < depth; k0 += 16) {
    std::uint32_t high[2][2], low[2][2];
#pragma unroll
    for (int x = 0; x < 2; ++x) fp32_b_fragment<kTransposed>(X, ldX, k0, 8 * x, high[x], low[x]);
#pragma unroll
    for (int strip = 0; strip < kStrips; ++strip) {
      std::uint32_t af[4];
      a_stored_mk<__nv_bfloat16>(af, a, lda, strip * kSubChunk, k0);
#pragma unroll
      for (int x = 0; x < 2; ++x) {
        mma_16x8x16<__nv_bfloat16>(acc[strip][x], af, high[x]);
        mma_16x8x16<__nv_bfloat16>(acc[strip][x], af, low[x]);
      }
    }
  }
}

// Each of the strip's rows (m0 + group, + 8) of acc times `row(m)`.
template <int NT>
__device__ void scale_rows(float (&acc)[NT][4], int count, const float* factor, int m0) {
  const Lane lane;
  const float top = factor[m0 + lane.group], bottom = factor[m0 + lane.group + 8];
  for_each_pair(acc, count, 0, 0, [&](int row, int, float& first, float& second) {
    const float f = row < 8 ? top : bottom;
    first *= f, second *= f;
  });
}

// sum over columns of acc's rows times the bf16 rows of Y (row m0 + r at Y + (m0 + r) ld), reduced over the
// quad that shares a row; lane pair 0 writes out[m0 + row].
template <int NT>
__device__ void row_dots(const float (&acc)[NT][4], int count, const __nv_bfloat16* Y, int ld, int m0,
                         float* out) {
  const Lane lane;
  float sums[2] = {0, 0};
#pragma unroll
  for (int x = 0; x < NT; ++x) {
    if (x >= count) break;
    const int c = 8 * x + 2 * lane.pair;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const __nv_bfloat162 y =
          *reinterpret_cast<const __nv_bfloat162*>(Y + (m0 + lane.group + 8 * h) * ld + c);
      sums[h] = fmaf(__low2float(y), acc[x][2 * h], fmaf(__high2float(y), acc[x][2 * h + 1], sums[h]));
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    sums[h] += __shfl_xor_sync(fused::kFullWarp, sums[h], 1);
    sums[h] += __shfl_xor_sync(fused::kFullWarp, sums[h], 2);
    if (lane.pair == 0) out[m0 + lane.group + 8 * h] = sums[h];
  }
}

// acc's rows += weight[row] times the bf16 rows of Y (the terms of M's diagonal).
template <int NT>
__device__ void add_weighted_rows(float (&acc)[NT][4], int count, const float* weight, const __nv_bfloat16* Y,
                                  int ld, int m0) {
  for_each_pair(acc, count, 0, 0, [&](int row, int c, float& first, float& second) {
    const float w = weight[m0 + row];
    const __nv_bfloat162 y = *reinterpret_cast<const __nv_bfloat162*>(Y + (m0 + row) * ld + c);
    first = fmaf(w, __low2float(y), first);
    second = fmaf(w, __high2float(y), second);
  });
}

// The strip's rows of acc (tokens t0 + m0 + row, columns 0 ..) into a [B, T, H, width] gradient.
template <int NT>
__device__ void store_rows(float (&acc)[NT][4], int count, __nv_bfloat16* out, const Dims& d, int b, int h,
                           int t0, int m0, int length, int width) {
  for_each_pair(acc, count, 0, 0, [&](int row, int c, float& first, float& second) {
    if (m0 + row < length) store_pair(out + d.row(b, h, t0 + m0 + row) * width + c, first, second);
  });
}

// acc (count tiles) += P B over the 16-row strips s in [first, last) of B: P a [C][ldC] matrix kept as two
// bf16 planes (high, low), its rows m0 .. m0 + 15 as A (kTransposed: its columns, i.e. P^T's rows), columns
// 16s .. 16s + 15; B 16-bit, stored [k][n] (row k at b + k * ldB).
template <bool kTransposed, int NT>
__device__ void mma_two_planes(float (&acc)[NT][4], int count, const __nv_bfloat16* high,
                               const __nv_bfloat16* low, int ldC, int m0, int first, int last,
                               const __nv_bfloat16* b, int ldB) {
  for (int s = first; s < last; ++s) {
    std::uint32_t af[2][4];
    if constexpr (kTransposed) {
      a_stored_km<__nv_bfloat16>(af[0], high, ldC, m0, s * kSubChunk);
      a_stored_km<__nv_bfloat16>(af[1], low, ldC, m0, s * kSubChunk);
    } else {
      a_stored_mk<__nv_bfloat16>(af[0], high, ldC, m0, s * kSubChunk);
      a_stored_mk<__nv_bfloat16>(af[1], low, ldC, m0, s * kSubChunk);
    }
    mma_b_stored_kn<__nv_bfloat16>(acc, count, af, b, ldB, s * kSubChunk, 0);
  }
}

// Per-token sums a chunk's dg needs, and its diagonal weights (shared memory): the dots q.dq, k.dk and k.dk's
// handed-on part come in partials, one per 16-column block of dq, dk and dv, summed in a fixed order.
struct ScalarGradSums {
  float *diagonal, *dq_dot, *dk_dot, *handed_dot, *state_dot;  // state_dot: one per warp
  __device__ static ScalarGradSums carve(float* base, int C, int K, int V) {
    float* dq_dot = base + C;
    float* dk_dot = dq_dot + K / 16 * C;
    float* handed_dot = dk_dot + K / 16 * C;
    return {base, dq_dot, dk_dot, handed_dot, handed_dot + V / 16 * C};
  }
};

// The per-token dots a chunk's dg is made of, each in `parts` rows of C partials summed in order (so that
// every kernel that makes them gets the same dg from the same partials): q . dq and k . dk's part through
// the scores (both without M's diagonal), k . dk's handed-on part, and S0 . dS's partials.
struct TokenDots {
  const float *dq_dot, *dk_dot, *handed_dot, *state_dot;
  int key_parts, value_parts, state_parts;
};

// One warp writes the chunk's dg (tokens t0 .. t0 + length - 1): the state term and the handed-on prefix
// forwards, the rest backwards. C <= 64: a lane takes two neighbouring tokens.
template <int C>
__device__ void write_scalar_gate_grads(const TokenDots& s, float e_whole, __nv_bfloat16* dg, const Dims& d,
                                        int b, int h, int t0, int length) {
  static_assert(C <= 64, "two tokens a lane");
  const int lane = threadIdx.x % 32, first = 2 * lane;  // the lane's two neighbouring tokens
  float state = 0;
  for (int w = 0; w < s.state_parts; ++w) state += s.state_dot[w];
  float handed[2] = {0, 0}, rest[2] = {0, 0};
#pragma unroll
  for (int e = 0; e < 2; ++e)
    if (first + e < C) {  // the partials, in order
      const int t = first + e;
      float dq_dot = 0, dk_dot = 0;
      for (int part = 0; part < s.key_parts; ++part)
        dq_dot += s.dq_dot[part * C + t], dk_dot += s.dk_dot[part * C + t];
      for (int part = 0; part < s.value_parts; ++part) handed[e] += s.handed_dot[part * C + t];
      rest[e] = dq_dot - dk_dot;
    }
  // scans of the pairs' sums: handed-on forwards, the rest backwards; then the lanes before (after) this
  // one's pair by a shift, never by subtracting its own terms back out (at -40 they are O(1) and the
  // answer ~e^-40)
  float before = handed[0] + handed[1], after = rest[0] + rest[1];
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const float below = __shfl_up_sync(fused::kFullWarp, before, o),
                above = __shfl_down_sync(fused::kFullWarp, after, o);
    if (lane >= o) before += below;
    if (lane + o < 32) after += above;
  }
  before = __shfl_up_sync(fused::kFullWarp, before, 1);
  after = __shfl_down_sync(fused::kFullWarp, after, 1);
  before = e_whole * state + (lane > 0 ? before : 0.0f);
  if (lane == 31) after = 0;
  const float grads[2] = {before + rest[0] + rest[1] + after, before + handed[0] + rest[1] + after};
#pragma unroll
  for (int e = 0; e < 2; ++e)
    if (first + e < length) dg[d.row(b, h, t0 + first + e)] = __float2bfloat16(grads[e]);
}

// grid (B H, chunks), 32 kScalarGradWarps threads, L.bytes() of shared memory. states: S before every chunk
// (the forward's); dstates: the gradient of the state after every chunk (the reverse scan's).
template <int C, int K>
__global__ void __launch_bounds__(32 * kScalarGradWarps)
    scalar_chunk_grads_kernel(Pointers<__nv_bfloat16> p, GradPointers<__nv_bfloat16> g, Dims d,
                              const float* states, const float* dstates, ScalarGradLayout L) {
  using Op = __nv_bfloat16;
  constexpr int kStrips = C / kSubChunk;
  extern __shared__ float smem[];
  Op *q = reinterpret_cast<Op*>(smem), *k = q + C * L.ldK(), *v = k + C * L.ldK(), *d_o = v + C * L.ldV();
  Op *M_high = d_o + C * L.ldV(), *M_low = M_high + C * L.ldC(), *A_high = M_low + C * L.ldC(),
     *A_low = A_high + C * L.ldC();
  float* floats = reinterpret_cast<float*>(A_low + C * L.ldC());
  const ScalarDecays dec = ScalarDecays::carve(floats, C);
  const ScalarGradSums sums = ScalarGradSums::carve(floats + scalar_decay_floats(C), C, K, d.V);
  const int warp = threadIdx.x / 32, V = d.V, key_blocks = K / 16, value_blocks = V / 16;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, t0 = n * C,
            length = min(C, d.T - t0);
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  const float *S0 = states + chunk * K * V, *dS = dstates + chunk * K * V;

  const std::int64_t first = d.row(b, h, t0);
  stage_token_rows<K / 8>(q, p.q + first * K, k, p.k + first * K, L.ldK(), d.H * K, length, C);
  stage_token_rows(v, p.v + first * V, d_o, g.d_o + first * V, L.ldV(), d.H * V, length, C, V / 8);
  cp_async_commit();
  chunk_scalar_decays<C>(dec, p, d, b, h, t0);
  {  // e^{G_C} S0 . dS, this warp's share
    float partial = 0;
    for (int e = 4 * int(threadIdx.x); e < K * V; e += 4 * int(blockDim.x)) {
      const float4 s = *reinterpret_cast<const float4*>(S0 + e),
                   ds = *reinterpret_cast<const float4*>(dS + e);
      partial += s.x * ds.x + s.y * ds.y + s.z * ds.z + s.w * ds.w;
    }
    for (int o = 16; o > 0; o >>= 1) partial += __shfl_xor_sync(fused::kFullWarp, partial, o);
    if (threadIdx.x % 32 == 0) sums.state_dot[warp] = partial;
  }
  cp_async_wait<0>();
  __syncthreads();

  // M (dA's scaled, decayed part below the diagonal; its diagonal apart) and A, by strips of 16 rows.
  for (int job = warp; job < 2 * kStrips; job += kScalarGradWarps) {
    const bool scores = job >= kStrips;
    const int strip = job % kStrips, m0 = strip * kSubChunk, tiles = 2 * strip + 2;
    float acc[C / 8][4] = {};
    if (scores) {
#pragma unroll
      for (int k0 = 0; k0 < K; k0 += 16) {
        std::uint32_t af[4];
        a_stored_mk<Op>(af, q, L.ldK(), m0, k0);
        mma_b_stored_nk<Op>(acc, tiles, af, k, L.ldK(), k0, 0);
      }
    } else {
      for (int k0 = 0; k0 < V; k0 += 16) {
        std::uint32_t af[4];
        a_stored_mk<Op>(af, d_o, L.ldV(), m0, k0);
        mma_b_stored_nk<Op>(acc, tiles, af, v, L.ldV(), k0, 0);
      }
    }
    Op *high = scores ? A_high : M_high, *low = scores ? A_low : M_low;
    for_each_pair(acc, tiles, m0, 0, [&](int i, int j, float& first, float& second) {
      float pair[2] = {first, second};
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int column = j + e;
        pair[e] = i < length && column <= i ? d.scale * pair[e] * dec.factor(i, column) : 0.0f;
        if (!scores && column == i) {  // M's diagonal, through no decay: kept apart for dg
          sums.diagonal[i] = pair[e];
          pair[e] = 0;
        }
      }
      const Parts<Op> parts = split<Op>(pair[0], pair[1]);
      *reinterpret_cast<std::uint32_t*>(high + i * L.ldC() + j) = parts.high;
      *reinterpret_cast<std::uint32_t*>(low + i * L.ldC() + j) = parts.low;
    });
  }
  __syncthreads();

  // dq, dk and dv by 16-column blocks (keys, keys, values), every row strip of the chunk in each, so that a
  // block's fragments of S0 or dS are read and split once (acc[strip]: two 8-column tiles of 16 rows).
  for (int job = warp; job < 2 * key_blocks + value_blocks; job += kScalarGradWarps) {
    float acc[kStrips][2][4] = {};
    if (job < key_blocks) {  // dq = scale e^{seen} do S0^T + M k
      const int c0 = 16 * job;
      mma_strips_fp32_b<true>(acc, d_o, L.ldV(), S0 + c0 * V, V, V);  // B[value][key] = S0[key][value]
#pragma unroll
      for (int strip = 0; strip < kStrips; ++strip) {
        const int m0 = strip * kSubChunk;
        scale_rows(acc[strip], 2, dec.seen, m0);
        for_each_accumulator(acc[strip], 2, 0, 0, [&](int, int, float& x) { x *= d.scale; });
        mma_two_planes<false>(acc[strip], 2, M_high, M_low, L.ldC(), m0, 0, strip + 1, k + c0, L.ldK());
        row_dots(acc[strip], 2, q + c0, L.ldK(), m0, sums.dq_dot + job * C);
        add_weighted_rows(acc[strip], 2, sums.diagonal, k + c0, L.ldK(), m0);
        store_rows(acc[strip], 2, g.dq + c0, d, b, h, t0, m0, length, K);
      }
    } else if (job < 2 * key_blocks) {  // dk = M^T q + (e^{to end} v) dS^T
      const int block = job - key_blocks, c0 = 16 * block;
#pragma unroll
      for (int strip = 0; strip < kStrips; ++strip) {
        const int m0 = strip * kSubChunk;
        mma_two_planes<true>(acc[strip], 2, M_high, M_low, L.ldC(), m0, strip, kStrips, q + c0, L.ldK());
        row_dots(acc[strip], 2, k + c0, L.ldK(), m0, sums.dk_dot + block * C);
        add_weighted_rows(acc[strip], 2, sums.diagonal, q + c0, L.ldK(), m0);
      }
      for (int k0 = 0; k0 < V; k0 += 16) {  // v's rows scaled in registers, two parts times dS's two parts
        std::uint32_t high[2][2], low[2][2];
#pragma unroll
        for (int x = 0; x < 2; ++x) fp32_b_fragment<true>(dS + c0 * V, V, k0, 8 * x, high[x], low[x]);
#pragma unroll
        for (int strip = 0; strip < kStrips; ++strip) {
          std::uint32_t raw[4], af[2][4];
          a_stored_mk<Op>(raw, v, L.ldV(), strip * kSubChunk, k0);
          scale_row_pairs(raw, dec.to_end + strip * kSubChunk, af);
#pragma unroll
          for (int x = 0; x < 2; ++x) {
            mma_16x8x16<Op>(acc[strip][x], af[0], high[x]);
            mma_16x8x16<Op>(acc[strip][x], af[1], high[x]);
            mma_16x8x16<Op>(acc[strip][x], af[0], low[x]);
          }
        }
      }
#pragma unroll
      for (int strip = 0; strip < kStrips; ++strip)
        store_rows(acc[strip], 2, g.dk + c0, d, b, h, t0, strip * kSubChunk, length, K);
    } else {  // dv = e^{to end} k dS + A^T do
      const int block = job - 2 * key_blocks, j0 = 16 * block;
      mma_strips_fp32_b<false>(acc, k, L.ldK(), dS + j0, V, K);  // B[key][value] = dS[key][value]
#pragma unroll
      for (int strip = 0; strip < kStrips; ++strip) {
        const int m0 = strip * kSubChunk;
        scale_rows(acc[strip], 2, dec.to_end, m0);
        // k_j . dk_j's handed-on part = (its dv part) . v_j
        row_dots(acc[strip], 2, v + j0, L.ldV(), m0, sums.handed_dot + block * C);
        mma_two_planes<true>(acc[strip], 2, A_high, A_low, L.ldC(), m0, strip, kStrips, d_o + j0, L.ldV());
        store_rows(acc[strip], 2, g.dv + j0, d, b, h, t0, m0, length, V);
      }
    }
  }
  __syncthreads();

  if (warp == 0)
    write_scalar_gate_grads<C>({sums.dq_dot, sums.dk_dot, sums.handed_dot, sums.state_dot, key_blocks,
                                value_blocks, kScalarGradWarps},
                               *dec.e_whole, g.dg, d, b, h, t0, length);
}

}  // namespace flabench::chunk
