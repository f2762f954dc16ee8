// The naive CUDA variant of every op: the recurrence of recurrence.h written as the obvious loop over time.
// One block per (batch, head) keeps the fp32 state in shared memory; each token is a few block-wide steps.
// Backward saves the state every kCheckpointInterval tokens during the forward, recomputes each segment's
// states into the workspace, and walks the segment backwards. fp32 math for every I/O dtype; simple and
// obviously correct, not fast: it is the baseline the fast variants are measured against.
#pragma once

#include <optional>
#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/format.h"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/variant.h"
#include "profiles/nvtx_range.h"

namespace flabench::naive {

constexpr int kThreads = 256;
constexpr int kCheckpointInterval = 64;

struct Dims {
  int B, T, H, K, V;
  int ld;  // row stride of the state in shared memory: V + 1 keeps row-wise walks free of bank conflicts
  float scale;
  __host__ __device__ int segments() const { return (T + kCheckpointInterval - 1) / kCheckpointInterval; }
};

inline Dims make_dims(const Problem& p) {
  return {int(p.B), int(p.T), int(p.H), int(p.K), int(p.V), int(p.V) + 1, float(p.scale)};
}

// Workspace: saved states [B*H, segments, K, V], one segment's recomputed states [B*H, L, K, V], and the
// per-(batch, head) partial sums of the bonus gradient [B*H, K].
struct Workspace {
  float* checkpoints;
  float* segment_states;
  float* du_partial;
};

inline std::size_t workspace_floats(const Problem& p) {
  const std::size_t heads = p.B * p.H, KV = p.K * p.V;
  const std::size_t segments = (p.T + kCheckpointInterval - 1) / kCheckpointInterval;
  return heads * segments * KV + heads * kCheckpointInterval * KV + heads * p.K;
}

inline Workspace carve_workspace(std::span<std::byte> bytes, const Problem& p) {
  auto* base = reinterpret_cast<float*>(bytes.data());
  const std::size_t heads = p.B * p.H, KV = p.K * p.V;
  const std::size_t segments = (p.T + kCheckpointInterval - 1) / kCheckpointInterval;
  float* segment_states = base + heads * segments * KV;
  return {base, segment_states, segment_states + heads * kCheckpointInterval * KV};
}

// The state (or its gradient) and the staged token vectors; backward adds dg and du terms [K], do and dsa
// [V].
inline std::size_t forward_shared_bytes(const Problem& p) {
  return sizeof(float) * (p.K * (p.V + 1) + 6 * p.K + 2 * p.V);
}
inline std::size_t backward_shared_bytes(const Problem& p) {
  return forward_shared_bytes(p) + sizeof(float) * (2 * p.K + 2 * p.V);
}

// ---------------------------------------------------------------------------------------------------------
// Device helpers shared by the forward and backward kernels

// One token's vectors staged in shared memory: q, k, decay = exp(g), a, b, u ([K] each), then v, sa ([V]).
struct TokenVectors {
  static constexpr int kKeyVectors = 6, kValueVectors = 2;
  float *q, *k, *decay, *a, *b, *u, *v, *sa;

  __device__ static TokenVectors carve(float* base, int K, int V) {
    TokenVectors t;
    t.q = base, t.k = t.q + K, t.decay = t.k + K, t.a = t.decay + K, t.b = t.a + K, t.u = t.b + K;
    t.v = t.u + K, t.sa = t.v + V;
    return t;
  }
  __device__ float* end(int K, int V) const { return q + kKeyVectors * K + kValueVectors * V; }
};

template <class Form, class T>
__device__ void stage_token(const Pointers<T>& p, const Dims& d, std::int64_t row, const TokenVectors& tv) {
  for (int i = threadIdx.x; i < d.K; i += blockDim.x) {
    tv.q[i] = to_float(p.q[row * d.K + i]);
    tv.k[i] = to_float(p.k[row * d.K + i]);
    tv.decay[i] = expf(to_float(Form::value.gate == GateKind::per_key ? p.g[row * d.K + i] : p.g[row]));
    if constexpr (Form::value.low_rank) {
      tv.a[i] = to_float(p.a[row * d.K + i]);
      tv.b[i] = to_float(p.b[row * d.K + i]);
    }
  }
  for (int j = threadIdx.x; j < d.V; j += blockDim.x) tv.v[j] = to_float(p.v[row * d.V + j]);
}

// sa = S^T a, one column per thread; `ld` is the row stride of S.
__device__ inline void low_rank_read(const float* S, int ld, const Dims& d, const TokenVectors& tv) {
  for (int j = threadIdx.x; j < d.V; j += blockDim.x) {
    float sa = 0;
    for (int i = 0; i < d.K; ++i) sa += tv.a[i] * S[i * ld + j];
    tv.sa[j] = sa;
  }
}

// The updated state element (i, j): decay_i S_ij + b_i sa_j + k_i v_j.
template <class Form>
__device__ __forceinline__ float updated(float s, int i, int j, const TokenVectors& tv) {
  float next = tv.decay[i] * s + tv.k[i] * tv.v[j];
  if constexpr (Form::value.low_rank) next += tv.b[i] * tv.sa[j];
  return next;
}

// Copies a K x V state between global memory (dense) and shared memory (row stride ld).
__device__ inline void load_state(float* shared, const float* global, const Dims& d) {
  for (int idx = threadIdx.x; idx < d.K * d.V; idx += blockDim.x)
    shared[(idx / d.V) * d.ld + idx % d.V] = global[idx];
}
__device__ inline void store_state(float* global, const float* shared, const Dims& d) {
  for (int idx = threadIdx.x; idx < d.K * d.V; idx += blockDim.x)
    global[idx] = shared[(idx / d.V) * d.ld + idx % d.V];
}

// ---------------------------------------------------------------------------------------------------------
// Kernels

template <class Form, class T>
__global__ void __launch_bounds__(kThreads)
    naive_recurrence_fwd_kernel(Pointers<T> p, Dims d, float* checkpoints) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, ld = d.ld;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  float* S = smem;  // [K][ld]
  const TokenVectors tv = TokenVectors::carve(S + K * ld, K, V);
  const std::int64_t state_offset = std::int64_t(bh) * K * V;

  load_state(S, p.h0 + state_offset, d);
  if constexpr (Form::value.bonus)
    for (int i = threadIdx.x; i < K; i += blockDim.x) tv.u[i] = to_float(p.u[h * K + i]);

  for (int t = 0; t < d.T; ++t) {
    __syncthreads();  // the previous token is done with the staged vectors
    const std::int64_t row = (std::int64_t(b) * d.T + t) * d.H + h;
    if (checkpoints && t % kCheckpointInterval == 0)
      store_state(checkpoints + (std::int64_t(bh) * d.segments() + t / kCheckpointInterval) * K * V, S, d);
    stage_token<Form>(p, d, row, tv);
    __syncthreads();

    if constexpr (Form::value.output_before_update || Form::value.low_rank) {
      if constexpr (Form::value.low_rank) low_rank_read(S, ld, d, tv);
      if constexpr (Form::value.output_before_update) {
        float bonus_weight = 0;
        if constexpr (Form::value.bonus)
          for (int i = 0; i < K; ++i) bonus_weight += tv.q[i] * tv.u[i] * tv.k[i];
        for (int j = threadIdx.x; j < V; j += blockDim.x) {
          float acc = bonus_weight * tv.v[j];
          for (int i = 0; i < K; ++i) acc += tv.q[i] * S[i * ld + j];
          p.o[row * V + j] = from_float<T>(d.scale * acc);
        }
      }
      __syncthreads();
    }

    for (int idx = threadIdx.x; idx < K * V; idx += blockDim.x) {
      const int i = idx / V, j = idx % V;
      S[i * ld + j] = updated<Form>(S[i * ld + j], i, j, tv);
    }

    if constexpr (!Form::value.output_before_update) {
      __syncthreads();
      for (int j = threadIdx.x; j < V; j += blockDim.x) {
        float acc = 0;
        for (int i = 0; i < K; ++i) acc += tv.q[i] * S[i * ld + j];
        p.o[row * V + j] = from_float<T>(d.scale * acc);
      }
    }
  }
  __syncthreads();
  store_state(p.ht + state_offset, S, d);
}

template <class Form, class T>
__global__ void __launch_bounds__(kThreads)
    naive_recurrence_bwd_kernel(Pointers<T> p, GradPointers<T> g, Dims d, Workspace ws) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, ld = d.ld;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  float* dS = smem;  // [K][ld], dL/dS_t
  const TokenVectors tv = TokenVectors::carve(dS + K * ld, K, V);
  float* b_dg = tv.end(K, V);  // [K] per-head gate: per-channel terms, summed by one thread
  float* b_du = b_dg + K;      // [K] this (batch, head)'s share of du
  float* b_do = b_du + K;      // [V]
  float* b_dsa = b_do + V;     // [V]
  const std::int64_t state_offset = std::int64_t(bh) * K * V;
  // states[s] is the state before token t0 + s of the current segment (dense, row stride V).
  float* states = ws.segment_states + std::int64_t(bh) * kCheckpointInterval * K * V;

  load_state(dS, g.d_ht + state_offset, d);
  for (int i = threadIdx.x; i < K; i += blockDim.x) {
    if constexpr (Form::value.bonus) tv.u[i] = to_float(p.u[h * K + i]);
    b_du[i] = 0;
  }

  for (int segment = d.segments() - 1; segment >= 0; --segment) {
    const int t0 = segment * kCheckpointInterval;
    const int length = min(kCheckpointInterval, d.T - t0);
    __syncthreads();
    const float* saved = ws.checkpoints + (std::int64_t(bh) * d.segments() + segment) * K * V;
    for (int idx = threadIdx.x; idx < K * V; idx += blockDim.x) states[idx] = saved[idx];
    for (int s = 0; s + 1 < length; ++s) {  // recompute the states before tokens t0+1 .. t0+length-1
      __syncthreads();
      stage_token<Form>(p, d, (std::int64_t(b) * d.T + t0 + s) * d.H + h, tv);
      __syncthreads();
      const float* current = states + std::int64_t(s) * K * V;
      float* next = states + std::int64_t(s + 1) * K * V;
      if constexpr (Form::value.low_rank) {
        low_rank_read(current, V, d, tv);
        __syncthreads();
      }
      for (int idx = threadIdx.x; idx < K * V; idx += blockDim.x)
        next[idx] = updated<Form>(current[idx], idx / V, idx % V, tv);
    }

    for (int s = length - 1; s >= 0; --s) {
      __syncthreads();
      const std::int64_t row = (std::int64_t(b) * d.T + t0 + s) * d.H + h;
      const float* S_prev = states + std::int64_t(s) * K * V;
      stage_token<Form>(p, d, row, tv);
      for (int j = threadIdx.x; j < V; j += blockDim.x) b_do[j] = to_float(g.d_o[row * V + j]);
      __syncthreads();

      float v_dot_do = 0, bonus_weight = 0;
      if constexpr (Form::value.bonus) {
        for (int j = 0; j < V; ++j) v_dot_do += tv.v[j] * b_do[j];
        for (int i = 0; i < K; ++i) bonus_weight += tv.q[i] * tv.u[i] * tv.k[i];
      }
      if constexpr (Form::value.low_rank) low_rank_read(S_prev, V, d, tv);
      if constexpr (!Form::value.output_before_update) {  // o_t = scale S_t^T q_t feeds dS_t
        for (int idx = threadIdx.x; idx < K * V; idx += blockDim.x) {
          const int i = idx / V, j = idx % V;
          dS[i * ld + j] += d.scale * tv.q[i] * b_do[j];
        }
      }
      __syncthreads();

      for (int i = threadIdx.x; i < K; i += blockDim.x) {  // reductions over V: one row of the state each
        float acc_q = 0, acc_k = 0, acc_decay = 0, acc_b = 0;
        for (int j = 0; j < V; ++j) {
          const float s_prev = S_prev[i * V + j];
          // the state the output read: S_{t-1}, or S_t recomputed
          const float s_read = Form::value.output_before_update ? s_prev : updated<Form>(s_prev, i, j, tv);
          const float ds = dS[i * ld + j];
          acc_q += s_read * b_do[j];
          acc_k += ds * tv.v[j];
          acc_decay += ds * s_prev;
          if constexpr (Form::value.low_rank) acc_b += ds * tv.sa[j];
        }
        float dq = acc_q, dk = acc_k;
        if constexpr (Form::value.bonus) {
          dq += v_dot_do * tv.u[i] * tv.k[i];
          dk += d.scale * v_dot_do * tv.u[i] * tv.q[i];
          b_du[i] += d.scale * v_dot_do * tv.q[i] * tv.k[i];
        }
        g.dq[row * K + i] = from_float<T>(d.scale * dq);
        g.dk[row * K + i] = from_float<T>(dk);
        if constexpr (Form::value.gate == GateKind::per_key)
          g.dg[row * K + i] = from_float<T>(acc_decay * tv.decay[i]);
        else
          b_dg[i] = acc_decay * tv.decay[i];
        if constexpr (Form::value.low_rank) g.db[row * K + i] = from_float<T>(acc_b);
      }
      for (int j = threadIdx.x; j < V; j += blockDim.x) {  // reductions over K: one column each
        float acc_v = 0, acc_dsa = 0;
        for (int i = 0; i < K; ++i) {
          acc_v += dS[i * ld + j] * tv.k[i];
          if constexpr (Form::value.low_rank) acc_dsa += tv.b[i] * dS[i * ld + j];
        }
        if constexpr (Form::value.bonus) acc_v += d.scale * bonus_weight * b_do[j];
        g.dv[row * V + j] = from_float<T>(acc_v);
        b_dsa[j] = acc_dsa;
      }
      __syncthreads();

      if constexpr (Form::value.gate == GateKind::per_head) {
        if (threadIdx.x == 0) {
          float sum = 0;
          for (int i = 0; i < K; ++i) sum += b_dg[i];
          g.dg[row] = from_float<T>(sum);
        }
      }
      if constexpr (Form::value.low_rank) {
        for (int i = threadIdx.x; i < K; i += blockDim.x) {
          float acc = 0;
          for (int j = 0; j < V; ++j) acc += S_prev[i * V + j] * b_dsa[j];
          g.da[row * K + i] = from_float<T>(acc);
        }
      }
      for (int idx = threadIdx.x; idx < K * V; idx += blockDim.x) {  // dS <- dL/dS_{t-1}
        const int i = idx / V, j = idx % V;
        float value = tv.decay[i] * dS[i * ld + j];
        if constexpr (Form::value.low_rank) value += tv.a[i] * b_dsa[j];
        if constexpr (Form::value.output_before_update) value += d.scale * tv.q[i] * b_do[j];
        dS[i * ld + j] = value;
      }
    }
  }
  __syncthreads();
  store_state(g.dh0 + state_offset, dS, d);
  if constexpr (Form::value.bonus)
    for (int i = threadIdx.x; i < K; i += blockDim.x) ws.du_partial[std::int64_t(bh) * K + i] = b_du[i];
}

// ---------------------------------------------------------------------------------------------------------
// Host side

template <class Form, class T>
void forward(const RecurrenceBinding& binding, const ForwardCall& call) {
  const Problem& p = call.problem;
  const std::size_t shared = forward_shared_bytes(p);
  auto kernel = naive_recurrence_fwd_kernel<Form, T>;
  allow_shared_memory(kernel, shared);
  float* checkpoints = call.save_for_backward ? carve_workspace(call.workspace, p).checkpoints : nullptr;
  Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  pointers.o = call.outputs.at(binding.o).as<T>();
  pointers.ht = call.outputs.at(binding.ht).as<float>();
  kernel<<<int(p.B * p.H), kThreads, shared, call.stream>>>(pointers, make_dims(p), checkpoints);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class Form, class T>
void backward(const RecurrenceBinding& binding, const BackwardCall& call) {
  const Problem& p = call.problem;
  const std::size_t shared = backward_shared_bytes(p);
  auto kernel = naive_recurrence_bwd_kernel<Form, T>;
  allow_shared_memory(kernel, shared);
  const Workspace ws = carve_workspace(call.workspace, p);
  const GradPointers<T> grads = bind_grads<T>(binding, call.grad_outputs, call.grads);
  {
    const NvtxRange range("recurrence");  // each launch of the backward is its own range for nsys and ncu
    kernel<<<int(p.B * p.H), kThreads, shared, call.stream>>>(bind_inputs<T>(binding, call.inputs), grads,
                                                              make_dims(p), ws);
    FLA_CUDA_CHECK_LAUNCH();
  }
  if constexpr (Form::value.bonus) {
    const NvtxRange range("sum_bonus_grad");
    sum_parts(ws.du_partial, grads.du, 1, int(p.B), p.H * p.K, call.stream);
  }
}

inline std::optional<std::string> shared_memory_limit(const Problem& p, Mode mode,
                                                      const DeviceLimits& limits) {
  const std::size_t needed = mode == Mode::fwdbwd ? backward_shared_bytes(p) : forward_shared_bytes(p);
  if (needed <= limits.shared_memory_per_block) return std::nullopt;
  return format(
      "naive keeps the %lldx%lld fp32 state in shared memory: needs %zu KiB, the device allows %zu KiB",
      static_cast<long long>(p.K), static_cast<long long>(p.V), needed / 1024,
      limits.shared_memory_per_block / 1024);
}

// The naive variant of an op whose math is `binding` (Form::value == binding.form).
template <class Form>
Variant make_variant(const std::string& op, const RecurrenceBinding& binding) {
  Variant variant;
  variant.op = op;
  variant.name = "naive";
  variant.description = "one block per (batch, head), fp32 state in shared memory, one token at a time";
  variant.backend = Backend::cuda;
  variant.support.limits = shared_memory_limit;
  // checkpoints and scratch of the backward
  variant.workspace_bytes = [](const Problem& p, Mode mode, const DeviceLimits&) {
    return mode == Mode::fwdbwd ? workspace_floats(p) * sizeof(float) : 0;
  };
  variant.forward = by_dtype<ForwardCall>(
      [binding](auto tag, const ForwardCall& call) { forward<Form, decltype(tag)>(binding, call); });
  variant.backward = by_dtype<BackwardCall>(
      [binding](auto tag, const BackwardCall& call) { backward<Form, decltype(tag)>(binding, call); });
  return variant;
}

}  // namespace flabench::naive
