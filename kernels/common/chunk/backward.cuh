// The chunk variant's backward, version 0 (CUDA cores; the algorithm of chunk_backward in
// tests/kernels/chunk_form.h): a reverse pass over the chunks for the gradient of the state after each,
// then one block per chunk for dq, dk, dv, dg (and rwkv6's du partials), then du summed.
#pragma once

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

constexpr int kBackwardThreads = 256;
constexpr int kValueTile = 32;

// Chunks in reverse: the gradient of the state after each chunk is saved, then carried back through the
// chunk's outputs and decay: dS <- e^{whole} dS + scale sum_i (q_i e^{seen_i}) do_i^T. Ends with dh0.
template <class Form, class T>
__global__ void __launch_bounds__(kBackwardThreads)
    chunk_dstate_kernel(Pointers<T> p, GradPointers<T> g, Dims d, float* dstates) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, j0 = blockIdx.y * kValueTile;
  const int VT = min(kValueTile, V - j0);
  Decays dec = Decays::carve(smem, C, K);
  float* qs = smem + Decays::floats(C, K);  // [C][K]: scale q_i e^{seen_i}
  float* dO = qs + C * K;                   // [C][VT]
  float* dS = dO + C * kValueTile;          // [K][VT]
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    dS[idx] = g.d_ht[std::int64_t(bh) * K * V + (idx / VT) * V + j0 + idx % VT];
  for (int n = d.chunks() - 1; n >= 0; --n) {
    const int t0 = n * C, length = min(C, d.T - t0);
    __syncthreads();
    float* saved = dstates + (std::int64_t(bh) * d.chunks() + n) * K * V;
    for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
      saved[(idx / VT) * V + j0 + idx % VT] = dS[idx];
    dec.build(GlobalGate<Form, T>{p.g, d, b, h, t0}, length, Form::value.output_before_update);
    stage_tile(g.d_o, d, b, h, t0, length, length, V, j0, VT, dO, VT);
    __syncthreads();
    for (int idx = threadIdx.x; idx < length * K; idx += blockDim.x)
      qs[idx] = d.scale * to_float(p.q[d.row(b, h, t0 + idx / K) * K + idx % K]) *
                __expf(dec.seen_from_start(idx / K, idx % K));
    __syncthreads();
    for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x) {
      const int c = idx / VT, j = idx % VT;
      float acc = __expf(dec.whole(c)) * dS[idx];
      for (int i = 0; i < length; ++i) acc += qs[i * K + c] * dO[i * VT + j];
      dS[idx] = acc;
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    g.dh0[std::int64_t(bh) * K * V + (idx / VT) * V + j0 + idx % VT] = dS[idx];
}

// One block per (batch, head, chunk): dq, dk, dv, dg (and rwkv6's du partial) from the chunk's start state,
// the gradient of its end state and its tokens.
template <class Form, class T>
__global__ void __launch_bounds__(kBackwardThreads)
    chunk_grads_kernel(Pointers<T> p, GradPointers<T> g, Dims d, Workspace ws) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y;
  const int t0 = n * C, length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, K);
  float* q = smem + Decays::floats(C, K);  // [C][K]
  float* k = q + C * K;                    // [C][K]
  float* qdq = k + C * K;                  // [C][K]: q . (dq's decayed terms), then dg
  float* kdk = qdq + C * K;                // [C][K]: k . (dk's decayed terms within the chunk)
  float* handed = kdk + C * K;             // [C][K]: k . (dk's term through the state handed on)
  float* v = handed + C * K;               // [C][V]
  float* dO = v + C * V;                   // [C][V]
  float* S0 = dO + C * V;                  // [K][V]
  float* dS = S0 + K * V;                  // [K][V]: dL/d(state after the chunk)
  float* vdo = dS + K * V;                 // [C][C]: v_s . do_i
  float* A = vdo + C * C;                  // [C][C]
  const auto reads = [](int i, int s) { return Form::value.output_before_update ? s < i : s <= i; };
  // The pair whose exponent spans no decay: its terms cancel out of dg exactly, so they stay out of it.
  const auto undecayed = [](int i, int s) { return s == (Form::value.output_before_update ? i - 1 : i); };
  dec.build(GlobalGate<Form, T>{p.g, d, b, h, t0}, length, Form::value.output_before_update);
  stage_tile(p.q, d, b, h, t0, length, length, K, 0, K, q, K);
  stage_tile(p.k, d, b, h, t0, length, length, K, 0, K, k, K);
  stage_tile(p.v, d, b, h, t0, length, length, V, 0, V, v, V);
  stage_tile(g.d_o, d, b, h, t0, length, length, V, 0, V, dO, V);
  const float* start = ws.states + (std::int64_t(bh) * d.chunks() + n) * K * V;
  const float* end_grad = ws.dstates + (std::int64_t(bh) * d.chunks() + n) * K * V;
  for (int idx = threadIdx.x; idx < K * V; idx += blockDim.x) S0[idx] = start[idx], dS[idx] = end_grad[idx];
  __syncthreads();
  for (int idx = threadIdx.x; idx < length * length; idx += blockDim.x) {
    const int i = idx / length, s = idx % length;
    float dot = 0, a = 0;
    for (int j = 0; j < V; ++j) dot += v[s * V + j] * dO[i * V + j];
    if (reads(i, s))
      for (int c = 0; c < K; ++c) a += q[i * K + c] * k[s * K + c] * __expf(dec.pair(i, s, c));
    vdo[i * C + s] = dot, A[i * C + s] = a;
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < length * K; idx += blockDim.x) {
    const int i = idx / K, c = idx % K;  // dq of token i; dk of token s = i
    float from_state = 0, intra_q = 0, intra_k = 0, to_state = 0, plain_q = 0, plain_k = 0;
    for (int j = 0; j < V; ++j)
      from_state += S0[c * V + j] * dO[i * V + j], to_state += v[i * V + j] * dS[c * V + j];
    for (int s = 0; s < length; ++s) {
      if (reads(i, s))
        (undecayed(i, s) ? plain_q : intra_q) += k[s * K + c] * __expf(dec.pair(i, s, c)) * vdo[i * C + s];
      if (reads(s, i))
        (undecayed(s, i) ? plain_k : intra_k) += q[s * K + c] * __expf(dec.pair(s, i, c)) * vdo[s * C + i];
    }
    const float decayed_q = d.scale * (__expf(dec.seen_from_start(i, c)) * from_state + intra_q);
    const float handed_k = __expf(dec.after(i, dec.subs, c)) * to_state;
    qdq[idx] = q[idx] * decayed_q;
    kdk[idx] = k[idx] * d.scale * intra_k;
    handed[idx] = k[idx] * handed_k;
    float gq = decayed_q + d.scale * plain_q, gk = d.scale * (intra_k + plain_k) + handed_k;
    if constexpr (Form::value.bonus) {  // terms no decay touches
      const float u = to_float(p.u[h * K + c]), weight = d.scale * vdo[i * C + i];
      gq += weight * u * k[idx];
      gk += weight * u * q[idx];
    }
    const std::int64_t r = d.row(b, h, t0 + i);
    g.dq[r * K + c] = from_float<T>(gq);
    g.dk[r * K + c] = from_float<T>(gk);
  }
  for (int idx = threadIdx.x; idx < length * V; idx += blockDim.x) {
    const int s = idx / V, j = idx % V;
    float acc = 0;
    for (int c = 0; c < K; ++c) acc += k[s * K + c] * __expf(dec.after(s, dec.subs, c)) * dS[c * V + j];
    for (int i = 0; i < length; ++i) acc += d.scale * A[i * C + s] * dO[i * V + j];
    if constexpr (Form::value.bonus) {
      float w = 0;
      for (int c = 0; c < K; ++c) w += q[s * K + c] * to_float(p.u[h * K + c]) * k[s * K + c];
      acc += d.scale * w * dO[s * V + j];
    }
    g.dv[d.row(b, h, t0 + s) * V + j] = from_float<T>(acc);
  }
  __syncthreads();
  // dg_t = (q.dq of the outputs from t on, or after t when the output reads the state before the update)
  // - (k.dk of the keys from t on) + S_end . dS, with the undecayed terms (which cancel) left out of both
  // sums and S_end . dS less the keys' handed-on terms from t on taken as e^{whole} S0 . dS plus those
  // before t: nothing O(1) cancels, so at log decays of -40 dg keeps its ~e^-40 size and relative accuracy
  // (tests/kernels/chunk_form.h, the every-token -40 case). One thread per channel walks the chunk.
  float* dg = qdq;
  for (int c = threadIdx.x; c < K; c += blockDim.x) {
    float before = 0;
    for (int j = 0; j < V; ++j) before += S0[c * V + j] * dS[c * V + j];
    before *= __expf(dec.whole(c));
    for (int t = 0; t < length; ++t) {
      const float next = before + handed[t * K + c];
      handed[t * K + c] = before;
      before = next;
    }
    float outputs = 0, keys = 0;
    for (int t = length - 1; t >= 0; --t) {
      const float own = qdq[t * K + c];
      if (!Form::value.output_before_update) outputs += own;
      keys += kdk[t * K + c];
      dg[t * K + c] = handed[t * K + c] + outputs - keys;
      if (Form::value.output_before_update) outputs += own;
    }
  }
  __syncthreads();
  if constexpr (Form::value.gate == GateKind::per_key) {
    for (int idx = threadIdx.x; idx < length * K; idx += blockDim.x)
      g.dg[d.row(b, h, t0 + idx / K) * K + idx % K] = from_float<T>(dg[idx]);
  } else {
    for (int t = threadIdx.x; t < length; t += blockDim.x) {
      float sum = 0;
      for (int c = 0; c < K; ++c) sum += dg[t * K + c];
      g.dg[d.row(b, h, t0 + t)] = from_float<T>(sum);
    }
  }
  if constexpr (Form::value.bonus) {
    for (int c = threadIdx.x; c < K; c += blockDim.x) {
      float sum = 0;
      for (int t = 0; t < length; ++t) sum += d.scale * vdo[t * C + t] * q[t * K + c] * k[t * K + c];
      ws.du_partial[(std::int64_t(bh) * d.chunks() + n) * K + c] = sum;
    }
  }
}

// du[h, c] = the sum over the batch and the chunks of the partials, in a fixed order.
template <class T>
__global__ void chunk_sum_bonus_kernel(const float* partial, T* du, int B, int H, int chunks, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * K) return;
  const int h = idx / K, c = idx % K;
  float sum = 0;
  for (int b = 0; b < B; ++b)
    for (int n = 0; n < chunks; ++n) sum += partial[((std::int64_t(b) * H + h) * chunks + n) * K + c];
  du[idx] = from_float<T>(sum);
}

inline std::size_t dstate_shared_bytes(const Problem& p) {
  const int C = p.chunk_size, K = int(p.K);
  return sizeof(float) * (Decays::floats(C, K) + C * K + C * kValueTile + K * kValueTile);
}
inline std::size_t grads_shared_bytes(const Problem& p) {
  const int C = p.chunk_size, K = int(p.K), V = int(p.V);
  return sizeof(float) * (Decays::floats(C, K) + 5 * C * K + 2 * C * V + 2 * K * V + 2 * C * C);
}

}  // namespace flabench::chunk
