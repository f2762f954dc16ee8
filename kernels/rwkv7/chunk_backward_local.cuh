// rwkv7 chunk backward, its second step: every input's gradient from its own chunk, given the state at the
// chunk's start S and V_new (the forward's), the gradient of the state at its end dS and dV_new (the reverse
// scan's, chunk_backward_states.cuh), and what the forward saved for it (A_qk, X, A_ak;
// tests/kernels/dplr_chunk_backward_form.h has the algebra, in the same order):
//   the pair matrices' gradients  dA_qk = dO V^T, dA_qb = dO V_new^T, dA_ak = (X^T dV_new) V^T,
//                                 dA_ab = X^T dX X^T with dX = dW (a e^Γe)^T + dV_new (A_ak V)^T,
//                                 dW = dV_new S^T
//   dv = A_qk^T dO + k~ dS + A_ak^T (X^T dV_new)
//   and the per-channel terms of dq, da, dk, db and dw the state gives (dO S^T, X^T dW, v dS^T, V_new dS^T,
//   S . dS), which it hands with the pair matrices' gradients to the per-channel step
//   (chunk_backward_channels.cuh).
// This is the kernel for fp32 inputs (16-bit ones: chunk_backward_local_mma.cuh, the same steps on the tensor
// cores). The products are warps' strips of fp32 products (chunk_products.cuh), every operand
// in shared memory in padded rows so that a product reads it along either index without bank conflicts: X
// and the pair matrices' gradients for the whole chunk, the value-side operands (dO, v, V_new, dV_new, S, dS)
// 32 value columns at a time. (Read from global memory and L2, the first version's strided operands and
// scratch round trips made the kernel 10-25x slower.) What does not fit stays in the block's scratch, read
// back coalesced (L2: kLocalSlots blocks loop over the chunks).
#pragma once

#include <type_traits>

#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_backward_states.cuh"
#include "kernels/rwkv7/chunk_local_plan.h"
#include "kernels/rwkv7/chunk_products.cuh"

namespace flabench::rwkv7 {

// Where a chunk's keys are: token i's channel c of a [B, T, H, K] input at first + i stride + c (elements);
// tokens from L on read as zeros.
struct KeyRows {
  std::int64_t first, stride;
  int L;
};

// a e^{Γe} and k~ = k e^{Γ_L - Γ}, token by token, each exponent a sum of rounded log2 decays in the order
// the per-channel kernel takes them (chunk_backward_channels.cuh): the exclusive sums within each 16-token
// step, what is left of the step after each token, and the totals of the steps before or after it (`room`,
// C / 16 x K floats in shared memory). A thread takes a step of one key channel for the step's total, then
// (after a barrier) half of it for its tokens, with the loads issued together (v31: an element a thread at a
// time, the loads had been a quarter of the kernel's waits on memory) from a pointer a channel (v36: each
// element's own 64-bit address and the divisions by K had been most of this function's instructions).
// emit(i, c, a_ic e^{Γe_ic}, k~_ic) for every token i < C and key c (K a power of two); the caller
// synchronises before it reuses the room.
template <int kBlockThreads = kThreads, class T, class Emit>
__device__ void decayed_keys(const Pointers<T>& p, int C, int K, const KeyRows& rows, float* room,
                             const Emit& emit) {
  constexpr int kStep = kCheckpointTokens;
  const int steps = C / kStep, k_shift = __ffs(K) - 1;
  // `count` tokens of channel c from token `first` on
  const auto load = [&](const T* x, int first, int c, auto count, float* to) {
    const T* row = x + (rows.first + first * rows.stride + c);  // advanced a token at a time
#pragma unroll
    for (int t = 0; t < decltype(count)::value; ++t, row += rows.stride)
      to[t] = first + t < rows.L ? to_float(*row) : 0.0f;
  };
  // the step's log2 decays and their running sums, in one order for both passes
  const auto step_sums = [&](int first, int c, float(&sums)[kStep]) {
    float w[kStep], sum = 0;
    load(p.g, first, c, std::integral_constant<int, kStep>{}, w);
#pragma unroll
    for (int t = 0; t < kStep; ++t) w[t] = log2_decay(w[t]);
#pragma unroll
    for (int t = 0; t < kStep; ++t) sums[t] = sum += w[t];
  };
  float* totals = room;
  for (int e = threadIdx.x; e < steps * K; e += kBlockThreads) {
    float sums[kStep];
    step_sums((e >> k_shift) * kStep, e & (K - 1), sums);
    totals[e] = sums[kStep - 1];
  }
  __syncthreads();
  // then a thread a half step (all the threads busy at C = 32, K = 64), the half's offset a compile-time one
  constexpr int kHalf = kStep / 2;
  for (int e = threadIdx.x; e < 2 * steps * K; e += kBlockThreads) {
    const int c = e & (K - 1), s = e >> (k_shift + 1), first = s * kStep;
    const float before = steps_total(totals, K, 0, s, c), after = steps_total(totals, K, s + 1, steps, c);
    const auto tokens = [&](auto offset) {
      constexpr int kFrom = decltype(offset)::value;
      float sums[kStep], a[kHalf], k[kHalf];
      load(p.a, first + kFrom, c, std::integral_constant<int, kHalf>{}, a);
      load(p.k, first + kFrom, c, std::integral_constant<int, kHalf>{}, k);
      step_sums(first, c, sums);
#pragma unroll
      for (int t = kFrom; t < kFrom + kHalf; ++t) {
        const float exclusive = t == 0 ? 0.0f : sums[t - 1];
        emit(first + t, c, a[t - kFrom] * exp2_flushed(exclusive + before),
             k[t - kFrom] * exp2_flushed(sums[kStep - 1] - sums[t] + after));
      }
    };
    if ((e >> k_shift & 1) == 0)
      tokens(std::integral_constant<int, 0>{});
    else
      tokens(std::integral_constant<int, kHalf>{});
  }
}

// A block's item (the blocks loop over the range's chunks of every head: range.count() B H items): the chunk
// n of head bh (batch b, head h), its first token t0 and length L, and its index among the workspace's
// per-chunk regions.
struct LocalItem {
  int n, bh, b, h, t0, L;
  std::int64_t block;
};
__device__ __forceinline__ LocalItem local_item(const ChunkDims& d, ChunkRange range, int item) {
  const int n = range.first + item % range.count(), bh = item / range.count(), b = bh / d.H, h = bh % d.H;
  const int t0 = n * d.C, L = min(d.C, d.T - t0);
  return {n, bh, b, h, t0, L, std::int64_t(bh) * d.chunks + n};
}

__global__ void __launch_bounds__(kThreads, 2)
    rwkv7_chunk_local_grads_kernel(Pointers<float> p, GradPointers<float> g, ChunkDims d, ChunkRange range,
                                   IntraOutputs in, BackwardRegions regions) {
  using T = float;
  using Phase = ProductPhase<float>;
  extern __shared__ __align__(16) float smem[];
  const int C = d.C, K = d.K, V = d.V;
  const int VS = min(kLocalSlice, V);
  constexpr int SP = kLocalSlice + 1;  // a staged value row
  const int CP = C + 1, KP = K + 1;
  float* Xs = smem;  // [C][CP]
  // the pairs' gradients, a pair's four together (the workspace takes them as four planes at the chunk's end)
  float4* pairs = reinterpret_cast<float4*>(Xs + C * CP);  // (dA_qk, dA_qb, dA_ak, dA_ab) [C][C]
  float* dx = reinterpret_cast<float*>(pairs + C * C);
  float* state_dot = dx + C * C;                 // [K]
  float* turn = smem + local_kept_floats(C, K);  // used in turn by the three regions below
  // the value slices
  float *S0s = turn, *dSs = S0s + K * SP;                                                   // [K][SP]
  float *dOs = dSs + K * SP, *vs = dOs + C * SP, *vns = vs + C * SP, *dvns = vns + C * SP;  // [C][SP]
  float *dakvs = dvns + C * SP, *akvs = dakvs + C * SP, *kts = akvs + C * SP;               // kts [C][K]
  // after them
  float *dws = turn, *ags = dws + C * KP, *xdx = ags + C * KP;  // [C][KP], [C][KP], [C][CP]

  const LocalScratch at(C, K);
  const ChannelTerms at_terms(C, K);
  float* scratch = regions.scratch + blockIdx.x * regions.scratch_floats;
  float *dw = scratch + at.dw, *ag = scratch + at.ag;

  for (int item = blockIdx.x; item < range.count() * d.B * d.H; item += gridDim.x) {
    const auto [n, bh, b, h, t0, L, block] = local_item(d, range, item);
    // token i's row of a [B, T, H, D] tensor: rows H D apart from the chunk's first (no 64-bit product a
    // element: the staging loops' index arithmetic was a fifth of the kernel's instructions, v29)
    const std::int64_t first_row = token_row(d, b, t0, h);
    const auto input = [&](const T* x, int D, int i, int c) {
      return i < L ? to_float(x[(first_row + std::int64_t(i) * d.H) * D + c]) : 0.0f;
    };
    const float* S0 = regions.states + (std::int64_t(bh) * d.checkpoints + t0 / kCheckpointTokens) * K * V;
    const float* dS = regions.dstates + block * K * V;
    const float *Aak = in.ak + block * C * C, *Aqk = in.qk + block * C * C;
    // the per-channel terms, for the per-channel gradients
    float* terms = regions.terms + block * at_terms.floats;
    float *qs = terms + at_terms.qs, *ks = terms + at_terms.ks, *bs = terms + at_terms.bs;
    float* xdw = terms + at_terms.xdw;
    const auto store = [&](T* to, int D, int i, int c, float x) {
      if (i < L) to[token_row(d, b, t0 + i, h) * D + c] = from_float<T>(x);
    };

    for (int e = threadIdx.x; e < C * C; e += kThreads) Xs[e / C * CP + e % C] = in.x[block * C * C + e];
    decayed_keys(p, C, K, KeyRows{first_row * K, std::int64_t(d.H) * K, L}, turn,
                 [&](int i, int c, float a_decayed, float k_decayed) {
                   ag[i * K + c] = a_decayed;
                   kts[i * K + c] = k_decayed;
                 });
    __syncthreads();  // the value slices take the decays' sums' room

    // The products over the value columns, a slice at a time (the first slice writes, the others add).
    for (int v0 = 0; v0 < V; v0 += VS) {
      const bool first = v0 == 0;
      const auto prior = [first](const float* x, int stride, int step = 1) {
        return [=](int i, int j) { return first ? 0.0f : x[i * stride + j * step]; };
      };
      const auto put = [](float* x, int stride) {
        return [=](int i, int j, float y) { x[i * stride + j] = y; };
      };
      // a thread keeps its column j (VS, a power of two, divides the block's threads)
      const int j = threadIdx.x % VS, rows_per_pass = kThreads / VS;
      for (int i = threadIdx.x / VS; i < C; i += rows_per_pass) {
        const int row = i * SP + j;
        dOs[row] = input(g.d_o, V, i, v0 + j);
        vs[row] = input(p.v, V, i, v0 + j);
        vns[row] = i < L ? regions.sa[(first_row + std::int64_t(i) * d.H) * V + v0 + j] : 0.0f;
        dvns[row] = regions.dvnew[block * C * V + i * V + v0 + j];
      }
      for (int c = threadIdx.x / VS; c < K; c += rows_per_pass) {
        S0s[c * SP + j] = S0[c * V + v0 + j];
        dSs[c * SP + j] = dS[c * V + v0 + j];
      }
      __syncthreads();
      for (int c = threadIdx.x; c < K; c += kThreads) {
        float sum = first ? 0.0f : state_dot[c];
        for (int j = 0; j < VS; ++j) sum = fmaf(S0s[c * SP + j], dSs[c * SP + j], sum);
        state_dot[c] = sum;
      }
      {
        Phase phase;
        const auto rows = [](const float* x) { return [x](int i, int t) { return x[i * SP + t]; }; };
        const auto columns = [](const float* x) { return [x](int t, int j) { return x[j * SP + t]; }; };
        const auto lower = [C](float* x) {  // m <= i kept, into one of the four
          return [=](int i, int m, float y) { x[(i * C + m) * 4] = m <= i ? y : 0.0f; };
        };
        phase.product(C, C, VS, rows(dOs), columns(vs), lower(&pairs->x), prior(&pairs->x, 4 * C, 4));
        phase.product(C, C, VS, rows(dOs), columns(vns), lower(&pairs->y), prior(&pairs->y, 4 * C, 4));
        phase.product(C, K, VS, rows(dvns), columns(S0s), put(dw, K), prior(dw, K));
        phase.product(C, K, VS, rows(dOs), columns(S0s), put(qs, K), prior(qs, K));
        phase.product(C, K, VS, rows(vs), columns(dSs), put(ks, K), prior(ks, K));
        phase.product(C, K, VS, rows(vns), columns(dSs), put(bs, K), prior(bs, K));
        phase.product(
            C, VS, C, [&](int m, int i) { return i >= m ? Xs[i * CP + m] : 0.0f; },
            [&](int i, int j) { return dvns[i * SP + j]; }, put(dakvs, SP));
        phase.product(
            C, VS, C, [&](int m, int t) { return t < m ? Aak[m * C + t] : 0.0f; },
            [&](int t, int j) { return vs[t * SP + j]; }, put(akvs, SP));
      }
      __syncthreads();
      {
        Phase phase;
        const auto strictly_lower = [](float* x, int stride, int step) {
          return [=](int i, int m, float y) { x[i * stride + m * step] = m < i ? y : 0.0f; };
        };
        phase.product(
            C, C, VS, [&](int i, int j) { return dakvs[i * SP + j]; },
            [&](int j, int m) { return vs[m * SP + j]; }, strictly_lower(&pairs->z, 4 * C, 4),
            prior(&pairs->z, 4 * C, 4));
        phase.product(
            C, C, VS, [&](int i, int j) { return dvns[i * SP + j]; },
            [&](int j, int m) { return akvs[m * SP + j]; }, strictly_lower(dx, C, 1), prior(dx, C));
        // dv = A_qk^T dO + k~ dS + A_ak^T (X^T dV_new)
        phase.product(
            C, VS, C + K + C,
            [&](int m, int t) {
              return t < C       ? Aqk[t * C + m]
                     : t < C + K ? kts[m * K + t - C]
                                 : (t - C - K > m ? Aak[(t - C - K) * C + m] : 0.0f);
            },
            [&](int t, int j) {
              return t < C       ? dOs[t * SP + j]
                     : t < C + K ? dSs[(t - C) * SP + j]
                                 : dakvs[(t - C - K) * SP + j];
            },
            [&](int m, int j, float x) { store(g.dv, V, m, v0 + j, x); });
      }
      __syncthreads();  // the slices are staged again
    }

    // dX's part through W, X^T dW, then X^T dX and dA_ab = X^T dX X^T.
    for (int e = threadIdx.x; e < C * K; e += kThreads) {
      const int i = e / K, c = e % K;
      dws[i * KP + c] = dw[e];
      ags[i * KP + c] = ag[e];
    }
    __syncthreads();
    {
      Phase phase;
      phase.product(
          C, C, K, [&](int i, int c) { return dws[i * KP + c]; },
          [&](int c, int m) { return ags[m * KP + c]; },
          [&](int i, int m, float x) { dx[i * C + m] = m < i ? x : 0.0f; },
          [&](int i, int m) { return dx[i * C + m]; });
      phase.product(
          C, K, C, [&](int i, int s) { return s >= i ? Xs[s * CP + i] : 0.0f; },
          [&](int s, int c) { return dws[s * KP + c]; }, [&](int i, int c, float x) { xdw[i * K + c] = x; });
    }
    __syncthreads();
    {
      Phase phase;
      phase.product(
          C, C, C, [&](int i, int s) { return s >= i ? Xs[s * CP + i] : 0.0f; },
          [&](int s, int u) { return dx[s * C + u]; }, [&](int i, int u, float x) { xdx[i * CP + u] = x; });
    }
    __syncthreads();
    {
      Phase phase;
      phase.product(
          C, C, C, [&](int i, int u) { return xdx[i * CP + u]; },
          [&](int u, int m) { return u <= m ? Xs[m * CP + u] : 0.0f; },
          [&](int i, int m, float x) { pairs[i * C + m].w = m < i ? x : 0.0f; });
    }
    __syncthreads();

    // What the per-channel gradients read (chunk_backward_channels.cuh): the pairs' gradients and S . dS.
    for (int e = threadIdx.x; e < C * C; e += kThreads) {
      const float4 x = pairs[e];
      float* to = regions.pairs + block * 4 * C * C + e;
      to[0] = x.x, to[C * C] = x.y, to[2 * C * C] = x.z, to[3 * C * C] = x.w;
    }
    for (int c = threadIdx.x; c < K; c += kThreads) terms[at_terms.state_dot + c] = state_dot[c];
  }
}

}  // namespace flabench::rwkv7
