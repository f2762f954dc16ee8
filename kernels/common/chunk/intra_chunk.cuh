// The chunk's intra-chunk scores A_is = sum_c q_ic k_sc e^{G_i - G_s} (s read by i), built in shared memory
// by the whole block; the forward's output pass and the backward's value gradients both start from them.
// Blocks between different 16-token sub-chunks are products of two factors <= 1 (q to its sub-chunk's start,
// k to its sub-chunk's end, the whole sub-chunks between on q's side). Diagonal blocks factor through
// e^{-local_s} for the channels whose sub-chunk decay stays within e^40, and are summed element by element in
// fp32 for the others. So no factor overflows and no difference of two long sums is exponentiated: log
// decays of -40 keep the nearest tokens' terms exact (kernels/notes/chunk.md).
#pragma once

#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/lane_sum.cuh"
#include "kernels/common/recurrence.h"

namespace flabench::chunk {

// The largest summed log decay (in magnitude) of a sub-chunk's channel whose diagonal block goes through the
// tensor cores as q_i e^{seen_i} . k_s e^{-local_s}: e^{-local_s} stays below e^40, far inside bf16's and
// fp32's range. Steeper channels are summed element by element.
constexpr float kFactorLimit = 40.f;

// The sub-chunk pairs whose products take a decay factor per channel: the diagonal ones (I, I), then the
// distant ones (I, J < I - 1) in the order of far_pair_index; neighbours (I, I - 1) take none.
__host__ __device__ inline int factor_pairs(int subs) {
  return subs + (subs - 1) * (subs - 2) / 2;
}
__device__ inline int far_pair_index(int I, int J) {
  return (I - 2) * (I - 1) / 2 + J;
}
// The sub-chunk pair (I, J <= I) at `index` when the pairs on and below the diagonal are numbered row by row:
// (0, 0), (1, 0), (1, 1), (2, 0), ...
__device__ inline void lower_pair(int index, int& I, int& J) {
  I = 0, J = index;
  while (J > I) J -= I + 1, ++I;
}
// far_pair_index's inverse: the distant pair (I, J) at index.
__device__ inline void far_pair(int index, int& I, int& J) {
  I = 2, J = index;
  while (J > I - 2) J -= I - 1, ++I;
}
// The scratch intra_chunk_scores takes: the steep channels' lists, then (once they are read) the factors of
// factor_pairs(C / kSubChunk) pairs for K channels.
__host__ __device__ inline int intra_chunk_scratch_ints(int C, int K) {
  const int subs = C / kSubChunk;
  return max(subs * (K + 1), factor_pairs(subs) * K);
}

// Whether sub-chunk I's channel c is gentle: its decay over the sub-chunk within e^kFactorLimit, so that its
// diagonal block factors through e^{-local}.
__device__ inline bool gentle_channel(const Decays& dec, int I, int c) {
  return -dec.total[I * dec.K + c] <= kFactorLimit;
}
// The factor the intra-chunk products give sub-chunk J's keys against sub-chunk I's queries (J <= I) in
// channel c: e^{-total_I} on the diagonal for a gentle channel, 0 for a steep one (summed element by
// element instead), 1 for neighbours, the decay of the sub-chunks between otherwise. Made once per pair and
// channel into a table rather than once per fragment element (kernels/notes/chunk.md, versions 42 and 43).
__device__ inline float sub_chunk_pair_factor(const Decays& dec, int I, int J, int c) {
  if (J == I) return gentle_channel(dec, I, c) ? exp_flushed(-dec.total[I * dec.K + c]) : 0.f;
  return I - J > 1 ? exp_flushed(dec.between(J, I, c)) : 1.f;
}

// On entry q and k hold the chunk's rows (C x K, row stride ldK, zero past the sequence) and dec its decays;
// on return A[i * ldC + s] holds the scores, q holds q e^{seen within its sub-chunk}, k holds k e^{decay
// after it to its sub-chunk's end} (the factors of the callers' other products), and for rwkv6 bonus[i] holds
// q_i . (u k_i) with u the head's bonus (unused otherwise). scratch is intra_chunk_scratch_ints(C, K) ints.
//   kAdd: q, k, dec and u are one tile of the head's channels, whose share of the scores and of the bonus is
// added to A and bonus (every term is a sum over channels): zero both before the first tile
// (zero_intra_chunk_scores) and mask A after the last (finish_intra_chunk_scores).
template <class Form, class T, bool kAdd = false>
__device__ void intra_chunk_scores(const Decays& dec, float* q, float* k, int ldK, int K, int C, float* A,
                                   int ldC, const T* u, float* bonus, int* scratch) {
  const auto reads = [](int i, int s) { return Form::value.output_before_update ? s < i : s <= i; };
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, subs = C / kSubChunk;
  const auto gentle = [&](int I, int c) { return gentle_channel(dec, I, c); };
  int* steep = scratch;
  int* steep_count = steep + subs * K;
  if (warp < subs)  // warp J lists sub-chunk J's steep channels
    for (int base = 0, count = 0; base < K; base += 32) {
      const int c = base + lane;
      const bool is_steep = c < K && !gentle(warp, c);
      const unsigned mask = __ballot_sync(0xffffffffu, is_steep);
      if (is_steep) steep[warp * K + count + __popc(mask & ((1u << lane) - 1))] = c;
      count += __popc(mask);
      if (lane == 0) steep_count[warp] = count;
    }
  __syncthreads();

  // A's diagonal blocks over the steep channels, element by element in fp32; above them zero. A warp's lanes
  // hold 16 different keys s, so each lane starts at its own place in the list and wraps: their reads fall
  // on different banks.
  for (int item = threadIdx.x; item < subs * kSubChunk * kSubChunk; item += int(blockDim.x)) {
    const int I = item / (kSubChunk * kSubChunk), i = I * kSubChunk + (item / kSubChunk) % kSubChunk,
              s = I * kSubChunk + item % kSubChunk, count = steep_count[I];
    if (kAdd && (!reads(i, s) || count == 0)) continue;  // nothing to add
    float a = 0;
    if (reads(i, s))
      for (int step = 0, e = count ? lane % count : 0; step < count; ++step, e = e + 1 == count ? 0 : e + 1) {
        const int c = steep[I * K + e];
        a += q[i * ldK + c] * k[s * ldK + c] * exp_flushed(dec.seen(i, c) - dec.local[s * K + c]);
      }
    if constexpr (kAdd)
      A[i * ldC + s] += a;
    else
      A[i * ldC + s] = a;
  }
  if constexpr (!kAdd) {
    const int row_shift = __ffs(C) - 1;  // C: 16, 32 or 64, so a row index is a shift, not a division
    for (int idx = threadIdx.x; idx < C * C; idx += int(blockDim.x)) {
      const int i = idx >> row_shift, s = idx & (C - 1);
      if (s / kSubChunk > i / kSubChunk) A[i * ldC + s] = 0;
    }
  }
  if constexpr (Form::value.bonus) {
    // kRowLanes lanes a row, 4 neighbouring channels each in 16-byte reads (a quarter warp on 32 neighbouring
    // floats of one row: no bank conflicts), then a sum over those lanes. A warp a row, rows in turn, each a
    // chain of u's loads and five shuffles, was a fifth of rwkv6's operands pass (kernels/notes/chunk.md,
    // version 92). C * kRowLanes is a multiple of 32: every lane of a warp reaches the shuffles.
    constexpr int kRowLanes = 8;
    for (int idx = threadIdx.x; idx < C * kRowLanes; idx += int(blockDim.x)) {
      const int i = idx / kRowLanes;
      float w = 0;
#pragma unroll 1  // unrolled, rwkv6's operands pass spilled 12 bytes at its 80 registers
      for (int c = (idx % kRowLanes) * 4; c < K; c += 4 * kRowLanes) {
        float qi[4], ki[4];
        *reinterpret_cast<float4*>(qi) = *reinterpret_cast<const float4*>(q + i * ldK + c);
        *reinterpret_cast<float4*>(ki) = *reinterpret_cast<const float4*>(k + i * ldK + c);
#pragma unroll
        for (int e = 0; e < 4; ++e) w += qi[e] * to_float(u[c + e]) * ki[e];
      }
      w = sum_over_lanes(w, kRowLanes);
      if (idx % kRowLanes == 0) bonus[i] = kAdd ? bonus[i] + w : w;
    }
  }
  __syncthreads();
  // q e^{seen} and k e^{decay to its sub-chunk's end} in place, 4 neighbouring channels a thread in 16-byte
  // reads and writes (K and the row strides are multiples of 4): one element a thread took a quarter of the
  // operands pass's instructions (version 92).
  const Divisor quads(K / 4);  // to a row
  for (int idx = threadIdx.x; idx < C * K / 4; idx += int(blockDim.x)) {
    const int t = quads.div(idx), c = quads.mod(idx) * 4;
    float seen[4], to_end[4], qt[4], kt[4];
    dec.seen(t, c, seen);
    dec.after(t, t / kSubChunk + 1, c, to_end);
    *reinterpret_cast<float4*>(qt) = *reinterpret_cast<const float4*>(q + t * ldK + c);
    *reinterpret_cast<float4*>(kt) = *reinterpret_cast<const float4*>(k + t * ldK + c);
#pragma unroll
    for (int e = 0; e < 4; ++e) qt[e] *= exp_flushed(seen[e]), kt[e] *= exp_flushed(to_end[e]);
    *reinterpret_cast<float4*>(q + t * ldK + c) = *reinterpret_cast<const float4*>(qt);
    *reinterpret_cast<float4*>(k + t * ldK + c) = *reinterpret_cast<const float4*>(kt);
  }
  // The steep lists are read: their room takes the pairs' factors, [factor_pairs][K].
  const Divisor channels(K);
  float* factors = reinterpret_cast<float*>(scratch);
  for (int idx = threadIdx.x; idx < factor_pairs(subs) * K; idx += int(blockDim.x)) {
    int I = channels.div(idx), J = I;  // a diagonal pair, or past them a distant one
    if (I >= subs) far_pair(I - subs, I, J);
    factors[idx] = sub_chunk_pair_factor(dec, I, J, channels.mod(idx));
  }
  __syncthreads();

  // On the tensor cores, one warp per block. Below the diagonal: (q to I's start, times the sub-chunks
  // between) . (k to J's end). On it, the gentle channels: (q to I's start) . (k to I's end, times
  // e^{-total}: k e^{-local}), added to the steep channels' sum, what i does not read masked out. Both
  // factors of the diagonal are fp32 values that one 16-bit rounding would spoil (6.6e-3 on o at T = 1 in
  // bf16, over the 5e-3 threshold), so they go in two bf16 parts each (fp16 inputs too: e^{-local} needs
  // bf16's range).
  using Op = std::conditional_t<std::is_same_v<T, float>, float, __nv_bfloat16>;
  for (int job = warp; job < subs * (subs + 1) / 2; job += blockDim.x / 32) {
    int I, J;
    lower_pair(job, I, J);
    float acc[2][4] = {};
    if (I - J == 1) {
      for (int k0 = 0; k0 < K; k0 += 16)
        mma_k16<T>(
            acc, 2, I * kSubChunk, 0, k0, [&](int i, int c) { return q[i * ldK + c]; },
            [&](int c, int s) { return k[(J * kSubChunk + s) * ldK + c]; });
    } else if (I > J) {
      const float* between = factors + (subs + far_pair_index(I, J)) * K;
      for (int k0 = 0; k0 < K; k0 += 16)
        mma_k16<T>(
            acc, 2, I * kSubChunk, 0, k0, [&](int i, int c) { return q[i * ldK + c] * between[c]; },
            [&](int c, int s) { return k[(J * kSubChunk + s) * ldK + c]; });
    } else {
      if constexpr (!kAdd)  // from the steep channels' sums (kAdd: added to them below)
        for_each_accumulator(acc, 2, I * kSubChunk, 0,
                             [&](int i, int s, float& a) { a = A[i * ldC + I * kSubChunk + s]; });
      // the steep channels' factor is 0: their terms, summed above, vanish here (q e^{seen} is finite)
      const float* diagonal = factors + I * K;
      for (int k0 = 0; k0 < K; k0 += 16)
        mma_k16<Op, 2, Exact::both>(
            acc, 2, I * kSubChunk, 0, k0, [&](int i, int c) { return q[i * ldK + c]; },
            [&](int c, int s) { return k[(I * kSubChunk + s) * ldK + c] * diagonal[c]; });
    }
    for_each_accumulator(acc, 2, I * kSubChunk, 0, [&](int i, int s, float& a) {
      const int key = J * kSubChunk + s;
      if constexpr (kAdd)
        A[i * ldC + key] += a;
      else
        A[i * ldC + key] = I > J || reads(i, key) ? a : 0.f;
    });
  }
  __syncthreads();
}

// Before the first tile of intra_chunk_scores<..., true>: A and bonus zero (ordered before the tiles' sums by
// the barrier inside the first call).
__device__ inline void zero_intra_chunk_scores(float* A, int ldC, int C, float* bonus) {
  for (int idx = threadIdx.x; idx < C * ldC; idx += int(blockDim.x)) A[idx] = 0;
  for (int i = threadIdx.x; i < C; i += int(blockDim.x)) bonus[i] = 0;
}

// After the last tile: what i does not read within its own sub-chunk, zero (above the diagonal blocks A
// stayed zero). The caller synchronises before A is read.
template <class Form>
__device__ void finish_intra_chunk_scores(float* A, int ldC, int C) {
  const auto reads = [](int i, int s) { return Form::value.output_before_update ? s < i : s <= i; };
  const int row_shift = __ffs(C) - 1;  // C: 16, 32 or 64
  for (int idx = threadIdx.x; idx < C * C; idx += int(blockDim.x)) {
    const int i = idx >> row_shift, s = idx & (C - 1);
    if (i / kSubChunk == s / kSubChunk && !reads(i, s)) A[i * ldC + s] = 0;
  }
}

// A's rows (finished, in shared memory, row stride ldC) to `to` ([C][C] fp32) and rwkv6's bonus beside them,
// the whole block in 16-byte stores: the output pass's saves for the backward and the operands pass's.
template <class Form>
__device__ void store_intra_chunk_scores(const float* A, int ldC, int C, const float* bonus, float* to,
                                         float* bonus_to) {
  const int row_shift = __ffs(C / 4) - 1;  // C: 16, 32 or 64; a row is C / 4 vectors
  for (int idx = threadIdx.x; idx < C * C / 4; idx += int(blockDim.x)) {
    const int i = idx >> row_shift, s = (idx & (C / 4 - 1)) * 4;
    reinterpret_cast<float4*>(to)[idx] = *reinterpret_cast<const float4*>(A + i * ldC + s);
  }
  if constexpr (Form::value.bonus)
    for (int i = threadIdx.x; i < C; i += int(blockDim.x)) bonus_to[i] = bonus[i];
}

}  // namespace flabench::chunk
