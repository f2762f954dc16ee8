// The chunk variant of the gated recurrences without a low-rank term (gla, simple_gla, rwkv6), version 0:
// the algorithm of kernels/notes/chunk.md (checked on the host by tests/kernels/chunk_form.h) on CUDA cores,
// for correctness first; tensor cores come next. Two kernels per forward (and two per backward, below):
//   state pass   one block per (batch, head, value tile), chunks in order: the state before every chunk is
//                written for the output pass (fp32), then S = e^{whole} S + sum_s (k_s e^{to_end(s)}) v_s^T;
//   output pass  one block per (batch, head, chunk, value tile): o_i = scale (sum_c q_ic e^{seen_ic} S0_c +
//                sum_{s read by i} A_is v_s + rwkv6's bonus), A_is = sum_c q_ic k_sc e^{pair(i, s, c)}.
// Log decays are summed within 16-token sub-chunks and every exponent is composed from those sums (never the
// difference of two large cumulative sums, never positive), so g down to -40 is safe in fp32.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/format.h"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/variant.h"
#include "profiles/nvtx_range.h"

namespace flabench::chunk {

constexpr int kThreads = 256;
constexpr int kSubChunk = 16;
constexpr int kMaxChunk = 64;
constexpr int kValueTile = 32;

struct Dims {
  int B, T, H, K, V, C;
  float scale;
  __host__ __device__ int chunks() const { return (T + C - 1) / C; }
  __host__ __device__ std::int64_t row(int b, int h, int t) const {
    return (std::int64_t(b) * T + t) * H + h;
  }
};

inline Dims make_dims(const Problem& p) {
  return {int(p.B), int(p.T), int(p.H), int(p.K), int(p.V), p.chunk_size, float(p.scale)};
}

// The chunk's log decays as sub-chunk sums in shared memory, [token][channel] and [sub-chunk][channel]:
// local (inclusive within the sub-chunk), seen (what the token's output sees: inclusive, or exclusive when
// the output reads the state before the update), total, and prefix (the sub-chunks before).
struct Decays {
  float *local, *seen, *total, *prefix;
  int K, subs;

  __device__ static Decays carve(float* base, int C, int K) {
    const int subs = C / kSubChunk;
    return {base, base + C * K, base + 2 * C * K, base + 2 * C * K + subs * K, K, subs};
  }
  __host__ __device__ static int floats(int C, int K) { return 2 * C * K + (2 * (C / kSubChunk) + 1) * K; }

  // One thread per channel walks the chunk's tokens.
  template <class Form, class T>
  __device__ void build(const T* g, const Dims& d, int b, int h, int t0, int length) {
    for (int c = threadIdx.x; c < K; c += blockDim.x) {
      float before_sub = 0;
      const int used = (length + kSubChunk - 1) / kSubChunk;
      for (int J = 0; J < subs; ++J) {
        float sum = 0;
        for (int i = J * kSubChunk; i < min(length, (J + 1) * kSubChunk); ++i) {
          const std::int64_t r = d.row(b, h, t0 + i);
          const float gate = to_float(Form::value.gate == GateKind::per_key ? g[r * K + c] : g[r]);
          seen[i * K + c] = Form::value.output_before_update ? sum : sum + gate;
          sum += gate;
          local[i * K + c] = sum;
        }
        total[J * K + c] = J < used ? sum : 0.f;
        prefix[J * K + c] = before_sub;
        before_sub += total[J * K + c];
      }
      prefix[subs * K + c] = before_sub;
    }
  }
  // After token s to the end of sub-chunk upto - 1.
  __device__ float after(int s, int upto, int c) const {
    float sum = total[(s / kSubChunk) * K + c] - local[s * K + c];
    for (int M = s / kSubChunk + 1; M < upto; ++M) sum += total[M * K + c];
    return sum;
  }
  __device__ float seen_from_start(int i, int c) const {
    return prefix[(i / kSubChunk) * K + c] + seen[i * K + c];
  }
  __device__ float pair(int i, int s, int c) const {  // Gq_i - G_s, s read by i
    if (s / kSubChunk == i / kSubChunk) return seen[i * K + c] - local[s * K + c];
    return seen[i * K + c] + after(s, i / kSubChunk, c);
  }
  __device__ float whole(int c) const { return prefix[subs * K + c]; }
};

// Stages `length` rows of `cols` values (of `stride` per row, from column `first`) as fp32 into out[t][col].
template <class T>
__device__ void stage_rows(const T* src, const Dims& d, int b, int h, int t0, int length, int stride,
                           int first, int cols, float* out) {
  for (int idx = threadIdx.x; idx < length * cols; idx += blockDim.x) {
    const int t = idx / cols, col = idx % cols;
    out[idx] = to_float(src[d.row(b, h, t0 + t) * stride + first + col]);
  }
}

template <class Form, class T>
__global__ void __launch_bounds__(kThreads) chunk_state_kernel(Pointers<T> p, Dims d, float* states) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, j0 = blockIdx.y * kValueTile;
  const int VT = min(kValueTile, V - j0);
  Decays dec = Decays::carve(smem, C, K);
  float* kd = smem + Decays::floats(C, K);  // [C][K]: k_s e^{to_end(s)}
  float* v = kd + C * K;                    // [C][VT]
  float* S = v + C * kValueTile;            // [K][VT]
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    S[idx] = p.h0[std::int64_t(bh) * K * V + (idx / VT) * V + j0 + idx % VT];
  for (int n = 0; n < d.chunks(); ++n) {
    const int t0 = n * C, length = min(C, d.T - t0);
    __syncthreads();
    float* saved = states + (std::int64_t(bh) * d.chunks() + n) * K * V;
    for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
      saved[(idx / VT) * V + j0 + idx % VT] = S[idx];
    dec.build<Form>(p.g, d, b, h, t0, length);
    stage_rows(p.v, d, b, h, t0, length, V, j0, VT, v);
    __syncthreads();
    for (int idx = threadIdx.x; idx < length * K; idx += blockDim.x) {
      const int s = idx / K, c = idx % K;
      kd[idx] = to_float(p.k[d.row(b, h, t0 + s) * K + c]) * __expf(dec.after(s, dec.subs, c));
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x) {
      const int c = idx / VT, j = idx % VT;
      float acc = __expf(dec.whole(c)) * S[idx];
      for (int s = 0; s < length; ++s) acc += kd[s * K + c] * v[s * VT + j];
      S[idx] = acc;
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    p.ht[std::int64_t(bh) * K * V + (idx / VT) * V + j0 + idx % VT] = S[idx];
}

template <class Form, class T>
__global__ void __launch_bounds__(kThreads) chunk_output_kernel(Pointers<T> p, Dims d, const float* states) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, j0 = blockIdx.z * kValueTile;
  const int VT = min(kValueTile, V - j0), t0 = n * C, length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, K);
  float* q = smem + Decays::floats(C, K);  // [C][K]
  float* k = q + C * K;                    // [C][K]
  float* v = k + C * K;                    // [C][VT]
  float* A = v + C * kValueTile;           // [C][C]
  float* S0 = A + C * C;                   // [K][VT]
  float* bonus = S0 + K * kValueTile;      // [C]
  dec.build<Form>(p.g, d, b, h, t0, length);
  stage_rows(p.q, d, b, h, t0, length, K, 0, K, q);
  stage_rows(p.k, d, b, h, t0, length, K, 0, K, k);
  stage_rows(p.v, d, b, h, t0, length, V, j0, VT, v);
  const float* saved = states + (std::int64_t(bh) * d.chunks() + n) * K * V;
  for (int idx = threadIdx.x; idx < K * VT; idx += blockDim.x)
    S0[idx] = saved[(idx / VT) * V + j0 + idx % VT];
  __syncthreads();
  for (int idx = threadIdx.x; idx < length * length; idx += blockDim.x) {
    const int i = idx / length, s = idx % length;
    const bool reads = Form::value.output_before_update ? s < i : s <= i;
    float a = 0;
    if (reads)
      for (int c = 0; c < K; ++c) a += q[i * K + c] * k[s * K + c] * __expf(dec.pair(i, s, c));
    A[i * C + s] = a;
  }
  if constexpr (Form::value.bonus) {
    for (int i = threadIdx.x; i < length; i += blockDim.x) {
      float w = 0;
      for (int c = 0; c < K; ++c) w += q[i * K + c] * to_float(p.u[h * K + c]) * k[i * K + c];
      bonus[i] = w;
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < length * K; idx += blockDim.x)  // q_i e^{seen_i}, in place: A is done
    q[idx] *= __expf(dec.seen_from_start(idx / K, idx % K));
  __syncthreads();
  for (int idx = threadIdx.x; idx < length * VT; idx += blockDim.x) {
    const int i = idx / VT, j = idx % VT;
    float acc = 0;
    for (int c = 0; c < K; ++c) acc += q[i * K + c] * S0[c * VT + j];
    for (int s = 0; s < length; ++s) acc += A[i * C + s] * v[s * VT + j];
    if constexpr (Form::value.bonus) acc += bonus[i] * v[i * VT + j];
    p.o[d.row(b, h, t0 + i) * V + j0 + j] = from_float<T>(d.scale * acc);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Backward (the algorithm of chunk_backward in tests/kernels/chunk_form.h)

// Workspace: the forward's states before every chunk [B*H, chunks, K, V], the state
// gradients after every chunk [B*H, chunks, K, V], and rwkv6's per-chunk bonus-gradient partials
// [B*H, chunks, K].
struct Workspace {
  float *states, *dstates, *du_partial;
};
inline Workspace carve_workspace(std::span<std::byte> bytes, const Problem& p) {
  auto* base = reinterpret_cast<float*>(bytes.data());
  const std::size_t heads = p.B * p.H, chunks = (p.T + p.chunk_size - 1) / p.chunk_size, KV = p.K * p.V;
  return {base, base + heads * chunks * KV, base + 2 * heads * chunks * KV};
}
inline std::size_t workspace_floats(const Problem& p) {
  const std::size_t heads = p.B * p.H, chunks = (p.T + p.chunk_size - 1) / p.chunk_size;
  return heads * chunks * (2 * p.K * p.V + p.K);
}

// Chunks in reverse: the gradient of the state after each chunk is saved, then carried back through the
// chunk's outputs and decay: dS <- e^{whole} dS + scale sum_i (q_i e^{seen_i}) do_i^T. Ends with dh0.
template <class Form, class T>
__global__ void __launch_bounds__(kThreads)
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
    dec.build<Form>(p.g, d, b, h, t0, length);
    stage_rows(g.d_o, d, b, h, t0, length, V, j0, VT, dO);
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
__global__ void __launch_bounds__(kThreads)
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
  dec.build<Form>(p.g, d, b, h, t0, length);
  stage_rows(p.q, d, b, h, t0, length, K, 0, K, q);
  stage_rows(p.k, d, b, h, t0, length, K, 0, K, k);
  stage_rows(p.v, d, b, h, t0, length, V, 0, V, v);
  stage_rows(g.d_o, d, b, h, t0, length, V, 0, V, dO);
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

inline std::size_t state_shared_bytes(const Problem& p) {
  const int C = p.chunk_size, K = int(p.K);
  return sizeof(float) * (Decays::floats(C, K) + C * K + C * kValueTile + K * kValueTile);
}
inline std::size_t output_shared_bytes(const Problem& p) {
  const int C = p.chunk_size, K = int(p.K);
  return sizeof(float) * (Decays::floats(C, K) + 2 * C * K + C * kValueTile + C * C + K * kValueTile + C);
}

template <class Form, class T>
void forward(const RecurrenceBinding& binding, const ForwardCall& call) {
  const Problem& p = call.problem;
  const Dims d = make_dims(p);
  Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  pointers.o = call.outputs.at(binding.o).as<T>();
  pointers.ht = call.outputs.at(binding.ht).as<float>();
  float* states = carve_workspace(call.workspace, p).states;
  const unsigned tiles = unsigned((p.V + kValueTile - 1) / kValueTile);
  {
    const NvtxRange range("states");
    allow_shared_memory(chunk_state_kernel<Form, T>, state_shared_bytes(p));
    chunk_state_kernel<Form, T>
        <<<dim3(unsigned(p.B * p.H), tiles), kThreads, state_shared_bytes(p), call.stream>>>(pointers, d,
                                                                                             states);
    FLA_CUDA_CHECK_LAUNCH();
  }
  const NvtxRange range("outputs");
  allow_shared_memory(chunk_output_kernel<Form, T>, output_shared_bytes(p));
  chunk_output_kernel<Form, T><<<dim3(unsigned(p.B * p.H), unsigned(d.chunks()), tiles), kThreads,
                                 output_shared_bytes(p), call.stream>>>(pointers, d, states);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class Form, class T>
void backward(const RecurrenceBinding& binding, const BackwardCall& call) {
  const Problem& p = call.problem;
  const Dims d = make_dims(p);
  const Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  const GradPointers<T> grads = bind_grads<T>(binding, call.grad_outputs, call.grads);
  const Workspace ws = carve_workspace(call.workspace, p);
  const unsigned tiles = unsigned((p.V + kValueTile - 1) / kValueTile);
  {
    const NvtxRange range("state_grads");
    allow_shared_memory(chunk_dstate_kernel<Form, T>, dstate_shared_bytes(p));
    chunk_dstate_kernel<Form, T>
        <<<dim3(unsigned(p.B * p.H), tiles), kThreads, dstate_shared_bytes(p), call.stream>>>(pointers, grads,
                                                                                              d, ws.dstates);
    FLA_CUDA_CHECK_LAUNCH();
  }
  {
    const NvtxRange range("grads");
    allow_shared_memory(chunk_grads_kernel<Form, T>, grads_shared_bytes(p));
    chunk_grads_kernel<Form, T>
        <<<dim3(unsigned(p.B * p.H), unsigned(d.chunks())), kThreads, grads_shared_bytes(p), call.stream>>>(
            pointers, grads, d, ws);
    FLA_CUDA_CHECK_LAUNCH();
  }
  if constexpr (Form::value.bonus) {
    const NvtxRange range("sum_bonus_grad");
    const int count = int(p.H * p.K);
    chunk_sum_bonus_kernel<T>
        <<<(count + 255) / 256, 256, 0, call.stream>>>(ws.du_partial, grads.du, d.B, d.H, d.chunks(), d.K);
    FLA_CUDA_CHECK_LAUNCH();
  }
}

inline std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  if (p.chunk_size % kSubChunk != 0 || p.chunk_size > kMaxChunk)
    return format("chunk takes chunk sizes 16, 32 and 64, not %d", p.chunk_size);
  std::size_t bytes = std::max(state_shared_bytes(p), output_shared_bytes(p));
  if (mode == Mode::fwdbwd) bytes = std::max({bytes, dstate_shared_bytes(p), grads_shared_bytes(p)});
  if (bytes > device.shared_memory_per_block)
    return format(
        "chunk v0 stages a %d-token chunk of K = %lld in %zu KiB of shared memory, the device allows %zu KiB",
        p.chunk_size, static_cast<long long>(p.K), bytes / 1024, device.shared_memory_per_block / 1024);
  return std::nullopt;
}

// The chunk variant of an op whose math is `binding` (Form::value == binding.form).
template <class Form>
Variant make_variant(const std::string& op, const RecurrenceBinding& binding) {
  Variant variant;
  variant.op = op;
  variant.name = "chunk";
  variant.description =
      "chunkwise: a state pass over the chunks, then the chunks' outputs in parallel; backward likewise (v0: "
      "CUDA cores)";
  variant.backend = Backend::cuda;
  variant.support.chunk_sizes = {16, 32, 64};
  variant.support.default_chunk_size = 64;
  variant.support.limits = limits;
  variant.workspace_bytes = [](const Problem& p) { return workspace_floats(p) * sizeof(float); };
  variant.forward = [binding](const ForwardCall& call) {
    dispatch_dtype(call.problem.dtype, [&](auto tag) { forward<Form, decltype(tag)>(binding, call); });
  };
  variant.backward = [binding](const BackwardCall& call) {
    dispatch_dtype(call.problem.dtype, [&](auto tag) { backward<Form, decltype(tag)>(binding, call); });
  };
  return variant;
}

}  // namespace flabench::chunk
