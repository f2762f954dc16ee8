// gsa's naive CUDA variant: the two passes of gsa.h as the obvious loop over time. One block per (batch,
// key/value head) keeps both fp32 states (Hk [K x M], Hv [M x V]) in shared memory and serves the head's G
// query heads; each token is a few block-wide steps with the softmax over the slots in fp32. Backward saves
// the state pair every kCheckpointInterval tokens during the forward, recomputes a segment's states into the
// workspace and walks it backwards. Simple and obviously correct: the baseline the fast variants answer to.
#include <optional>
#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/format.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/gsa/gsa.h"
#include "kernels/gsa/pointers.cuh"

namespace flabench {
namespace gsa {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kCheckpointInterval = 64;

int segments(const Problem& p) {
  return int((p.T + kCheckpointInterval - 1) / kCheckpointInterval);
}

// Workspace: the saved state pairs [B*H, segments, K*M + M*V] and one segment's recomputed pairs
// [B*H, kCheckpointInterval, K*M + M*V], each pair Hk then Hv, dense.
struct Workspace {
  float* checkpoints;
  float* segment_states;
};

std::size_t pair_floats(const Problem& p) {
  return std::size_t(p.K * p.M + p.M * p.V);
}

std::size_t workspace_floats(const Problem& p) {
  return std::size_t(p.B * p.H) * (segments(p) + kCheckpointInterval) * pair_floats(p);
}

Workspace carve_workspace(std::span<std::byte> bytes, const Problem& p) {
  auto* base = reinterpret_cast<float*>(bytes.data());
  return {base, base + std::size_t(p.B * p.H) * segments(p) * pair_floats(p)};
}

// Shared memory: the two states (or their gradients) with padded rows, then one token's vectors: k [K],
// v [V], s [M], decay [M], q [G*K], slot weights p [G*M]; backward adds do [G*V] and the logits' gradient
// [G*M].
std::size_t forward_shared_floats(const Problem& p) {
  return p.K * (p.M + 1) + p.M * (p.V + 1) + p.K + p.V + 2 * p.M + p.G * p.K + p.G * p.M;
}
std::size_t backward_shared_floats(const Problem& p) {
  return forward_shared_floats(p) + p.G * p.V + p.G * p.M;
}

struct Shared {
  float *hk, *hv;  // [K][M+1], [M][V+1]
  float *k, *v, *s, *decay, *q, *weights, *d_o, *d_logits;
  int ldk, ldv;

  __device__ static Shared carve(float* base, const Dims& d) {
    Shared sh;
    sh.ldk = d.M + 1, sh.ldv = d.V + 1;
    sh.hk = base;
    sh.hv = sh.hk + d.K * sh.ldk;
    sh.k = sh.hv + d.M * sh.ldv;
    sh.v = sh.k + d.K;
    sh.s = sh.v + d.V;
    sh.decay = sh.s + d.M;
    sh.q = sh.decay + d.M;
    sh.weights = sh.q + d.G * d.K;
    sh.d_o = sh.weights + d.G * d.M;
    sh.d_logits = sh.d_o + d.G * d.V;
    return sh;
  }
};

template <class T>
__device__ void stage_token(const Pointers<T>& p, const Dims& d, int b, int t, int h, const Shared& sh) {
  const std::int64_t row = d.head_row(b, t, h);
  for (int i = threadIdx.x; i < d.K; i += blockDim.x) sh.k[i] = to_float(p.k[row * d.K + i]);
  for (int j = threadIdx.x; j < d.V; j += blockDim.x) sh.v[j] = to_float(p.v[row * d.V + j]);
  for (int m = threadIdx.x; m < d.M; m += blockDim.x) {
    sh.s[m] = to_float(p.s[row * d.M + m]);
    sh.decay[m] = expf(to_float(p.f[row * d.M + m]));  // f <= 0: the decay is in (0, 1], never overflows
  }
  for (int idx = threadIdx.x; idx < d.G * d.K; idx += blockDim.x)
    sh.q[idx] = to_float(p.q[d.query_row(b, t, h, idx / d.K) * d.K + idx % d.K]);
}

// The updated state elements: Hk_t(i, m) = Hk_{t-1}(i, m) e_m + k_i s_m and Hv_t(m, j) = e_m Hv_{t-1}(m, j)
// + s_m v_j.
__device__ __forceinline__ float next_hk(float before, int i, int m, const Shared& sh) {
  return before * sh.decay[m] + sh.k[i] * sh.s[m];
}
__device__ __forceinline__ float next_hv(float before, int m, int j, const Shared& sh) {
  return sh.decay[m] * before + sh.s[m] * sh.v[j];
}

// weights[g] = softmax over the slots of weights[g] (the scaled logits), one warp per query head.
__device__ void softmax_rows(float* weights, const Dims& d) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int g = warp; g < d.G; g += kWarps) {
    float* row = weights + g * d.M;
    float largest = -INFINITY;
    for (int m = lane; m < d.M; m += 32) largest = fmaxf(largest, row[m]);
    for (int offset = 16; offset > 0; offset /= 2)
      largest = fmaxf(largest, __shfl_xor_sync(~0u, largest, offset));
    float total = 0;
    for (int m = lane; m < d.M; m += 32) total += (row[m] = expf(row[m] - largest));
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(~0u, total, offset);
    const float inverse = 1.0f / total;
    for (int m = lane; m < d.M; m += 32) row[m] *= inverse;
  }
}

// Copies a rows x cols state between global memory (dense) and shared memory (row stride ld).
__device__ void load_state(float* shared, int ld, const float* global, int rows, int cols) {
  for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x)
    shared[(idx / cols) * ld + idx % cols] = global[idx];
}
__device__ void store_state(float* global, const float* shared, int ld, int rows, int cols) {
  for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x)
    global[idx] = shared[(idx / cols) * ld + idx % cols];
}

template <class T>
__global__ void __launch_bounds__(kThreads) gsa_naive_fwd_kernel(Pointers<T> p, Dims d, float* checkpoints) {
  extern __shared__ float smem[];
  const Shared sh = Shared::carve(smem, d);
  const int K = d.K, V = d.V, M = d.M, G = d.G;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  const int segment_count = (d.T + kCheckpointInterval - 1) / kCheckpointInterval;
  const std::int64_t pair = std::int64_t(K) * M + std::int64_t(M) * V;

  load_state(sh.hk, sh.ldk, p.hk0 + std::int64_t(bh) * K * M, K, M);
  load_state(sh.hv, sh.ldv, p.hv0 + std::int64_t(bh) * M * V, M, V);
  for (int t = 0; t < d.T; ++t) {
    __syncthreads();  // the previous token is done with the staged vectors and the weights
    if (checkpoints && t % kCheckpointInterval == 0) {
      float* saved = checkpoints + (std::int64_t(bh) * segment_count + t / kCheckpointInterval) * pair;
      store_state(saved, sh.hk, sh.ldk, K, M);
      store_state(saved + K * M, sh.hv, sh.ldv, M, V);
    }
    stage_token(p, d, b, t, h, sh);
    __syncthreads();
    for (int idx = threadIdx.x; idx < K * M; idx += blockDim.x) {
      float& element = sh.hk[(idx / M) * sh.ldk + idx % M];
      element = next_hk(element, idx / M, idx % M, sh);
    }
    for (int idx = threadIdx.x; idx < M * V; idx += blockDim.x) {
      float& element = sh.hv[(idx / V) * sh.ldv + idx % V];
      element = next_hv(element, idx / V, idx % V, sh);
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < G * M; idx += blockDim.x) {  // logits: scale Hk_t^T q, per query head
      const int g = idx / M, m = idx % M;
      float acc = 0;
      for (int i = 0; i < K; ++i) acc += sh.hk[i * sh.ldk + m] * sh.q[g * K + i];
      sh.weights[idx] = d.scale * acc;
    }
    __syncthreads();
    softmax_rows(sh.weights, d);
    __syncthreads();
    for (int idx = threadIdx.x; idx < G * V; idx += blockDim.x) {  // o = Hv_t^T p, per query head
      const int g = idx / V, j = idx % V;
      float acc = 0;
      for (int m = 0; m < M; ++m) acc += sh.hv[m * sh.ldv + j] * sh.weights[g * M + m];
      p.o[d.query_row(b, t, h, g) * V + j] = from_float<T>(acc);
    }
  }
  __syncthreads();
  store_state(p.hkt + std::int64_t(bh) * K * M, sh.hk, sh.ldk, K, M);
  store_state(p.hvt + std::int64_t(bh) * M * V, sh.hv, sh.ldv, M, V);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    gsa_naive_bwd_kernel(Pointers<T> p, GradPointers<T> g, Dims d, Workspace ws) {
  extern __shared__ float smem[];
  const Shared sh = Shared::carve(smem, d);  // hk, hv hold dL/dHk_t, dL/dHv_t
  const int K = d.K, V = d.V, M = d.M, G = d.G;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  const int segment_count = (d.T + kCheckpointInterval - 1) / kCheckpointInterval;
  const std::int64_t pair = std::int64_t(K) * M + std::int64_t(M) * V;
  // states + s * pair: the pair before token t0 + s of the current segment (dense Hk, then dense Hv)
  float* states = ws.segment_states + std::int64_t(bh) * kCheckpointInterval * pair;

  load_state(sh.hk, sh.ldk, g.d_hkt + std::int64_t(bh) * K * M, K, M);
  load_state(sh.hv, sh.ldv, g.d_hvt + std::int64_t(bh) * M * V, M, V);
  for (int segment = segment_count - 1; segment >= 0; --segment) {
    const int t0 = segment * kCheckpointInterval;
    const int length = min(kCheckpointInterval, d.T - t0);
    __syncthreads();
    const float* saved = ws.checkpoints + (std::int64_t(bh) * segment_count + segment) * pair;
    for (std::int64_t idx = threadIdx.x; idx < pair; idx += blockDim.x) states[idx] = saved[idx];
    for (int s = 0; s + 1 < length; ++s) {  // recompute the pairs before tokens t0+1 .. t0+length-1
      __syncthreads();
      stage_token(p, d, b, t0 + s, h, sh);
      __syncthreads();
      const float* now = states + s * pair;
      float* next = states + (s + 1) * pair;
      for (int idx = threadIdx.x; idx < K * M; idx += blockDim.x)
        next[idx] = next_hk(now[idx], idx / M, idx % M, sh);
      for (int idx = threadIdx.x; idx < M * V; idx += blockDim.x)
        next[K * M + idx] = next_hv(now[K * M + idx], idx / V, idx % V, sh);
    }

    for (int s = length - 1; s >= 0; --s) {
      const int t = t0 + s;
      const float* hk_before = states + s * pair;  // Hk_{t-1}, dense [K][M]
      const float* hv_before = hk_before + K * M;  // Hv_{t-1}, dense [M][V]
      __syncthreads();
      stage_token(p, d, b, t, h, sh);
      for (int idx = threadIdx.x; idx < G * V; idx += blockDim.x)
        sh.d_o[idx] = to_float(g.d_o[d.query_row(b, t, h, idx / V) * V + idx % V]);
      __syncthreads();
      // The forward of token t again: logits from Hk_t, and dp = Hv_t do (into d_logits for now).
      for (int idx = threadIdx.x; idx < G * M; idx += blockDim.x) {
        const int q_head = idx / M, m = idx % M;
        float logit = 0, dp = 0;
        for (int i = 0; i < K; ++i) logit += next_hk(hk_before[i * M + m], i, m, sh) * sh.q[q_head * K + i];
        for (int j = 0; j < V; ++j) dp += next_hv(hv_before[m * V + j], m, j, sh) * sh.d_o[q_head * V + j];
        sh.weights[idx] = d.scale * logit;
        sh.d_logits[idx] = dp;
      }
      __syncthreads();
      softmax_rows(sh.weights, d);
      __syncthreads();
      // Through the softmax: dlogit_m = scale p_m (dp_m - sum_m' p_m' dp_m'), one warp per query head.
      for (int q_head = threadIdx.x / 32; q_head < G; q_head += kWarps) {
        const float* w = sh.weights + q_head * M;
        float* dl = sh.d_logits + q_head * M;
        float weighted = 0;
        for (int m = threadIdx.x % 32; m < M; m += 32) weighted += w[m] * dl[m];
        for (int offset = 16; offset > 0; offset /= 2) weighted += __shfl_xor_sync(~0u, weighted, offset);
        for (int m = threadIdx.x % 32; m < M; m += 32) dl[m] = d.scale * w[m] * (dl[m] - weighted);
      }
      __syncthreads();
      for (int idx = threadIdx.x; idx < G * K; idx += blockDim.x) {  // dq = Hk_t dlogits
        const int q_head = idx / K, i = idx % K;
        float acc = 0;
        for (int m = 0; m < M; ++m)
          acc += next_hk(hk_before[i * M + m], i, m, sh) * sh.d_logits[q_head * M + m];
        g.dq[d.query_row(b, t, h, q_head) * K + i] = from_float<T>(acc);
      }
      for (int idx = threadIdx.x; idx < K * M; idx += blockDim.x) {  // dHk_t += sum_g q_g dlogits_g^T
        const int i = idx / M, m = idx % M;
        float acc = 0;
        for (int q_head = 0; q_head < G; ++q_head) acc += sh.q[q_head * K + i] * sh.d_logits[q_head * M + m];
        sh.hk[i * sh.ldk + m] += acc;
      }
      for (int idx = threadIdx.x; idx < M * V; idx += blockDim.x) {  // dHv_t += sum_g p_g do_g^T
        const int m = idx / V, j = idx % V;
        float acc = 0;
        for (int q_head = 0; q_head < G; ++q_head) acc += sh.weights[q_head * M + m] * sh.d_o[q_head * V + j];
        sh.hv[m * sh.ldv + j] += acc;
      }
      __syncthreads();
      // Through the update of token t.
      const std::int64_t row = d.head_row(b, t, h);
      for (int i = threadIdx.x; i < K; i += blockDim.x) {
        float acc = 0;
        for (int m = 0; m < M; ++m) acc += sh.hk[i * sh.ldk + m] * sh.s[m];
        g.dk[row * K + i] = from_float<T>(acc);
      }
      for (int j = threadIdx.x; j < V; j += blockDim.x) {
        float acc = 0;
        for (int m = 0; m < M; ++m) acc += sh.hv[m * sh.ldv + j] * sh.s[m];
        g.dv[row * V + j] = from_float<T>(acc);
      }
      for (int m = threadIdx.x; m < M; m += blockDim.x) {
        float slot_grad = 0, carried = 0;
        for (int i = 0; i < K; ++i) {
          slot_grad += sh.hk[i * sh.ldk + m] * sh.k[i];
          carried += sh.hk[i * sh.ldk + m] * hk_before[i * M + m];
        }
        for (int j = 0; j < V; ++j) {
          slot_grad += sh.hv[m * sh.ldv + j] * sh.v[j];
          carried += sh.hv[m * sh.ldv + j] * hv_before[m * V + j];
        }
        g.ds[row * M + m] = from_float<T>(slot_grad);
        g.df[row * M + m] = from_float<T>(sh.decay[m] * carried);
      }
      __syncthreads();
      for (int idx = threadIdx.x; idx < K * M; idx += blockDim.x)
        sh.hk[(idx / M) * sh.ldk + idx % M] *= sh.decay[idx % M];
      for (int idx = threadIdx.x; idx < M * V; idx += blockDim.x)
        sh.hv[(idx / V) * sh.ldv + idx % V] *= sh.decay[idx / V];
    }
  }
  __syncthreads();
  store_state(g.dhk0 + std::int64_t(bh) * K * M, sh.hk, sh.ldk, K, M);
  store_state(g.dhv0 + std::int64_t(bh) * M * V, sh.hv, sh.ldv, M, V);
}

template <class T>
void forward(const ForwardCall& call) {
  const Problem& p = call.problem;
  const std::size_t shared = forward_shared_floats(p) * sizeof(float);
  allow_shared_memory(gsa_naive_fwd_kernel<T>, shared);
  float* checkpoints = call.save_for_backward ? carve_workspace(call.workspace, p).checkpoints : nullptr;
  gsa_naive_fwd_kernel<T>
      <<<int(p.B * p.H), kThreads, shared, call.stream>>>(bind_forward<T>(call), make_dims(p), checkpoints);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class T>
void backward(const BackwardCall& call) {
  const Problem& p = call.problem;
  const std::size_t shared = backward_shared_floats(p) * sizeof(float);
  allow_shared_memory(gsa_naive_bwd_kernel<T>, shared);
  gsa_naive_bwd_kernel<T><<<int(p.B * p.H), kThreads, shared, call.stream>>>(
      bind_inputs<T>(call.inputs), bind_grads<T>(call), make_dims(p), carve_workspace(call.workspace, p));
  FLA_CUDA_CHECK_LAUNCH();
}

std::optional<std::string> shared_memory_limit(const Problem& p, Mode mode, const DeviceLimits& limits) {
  const std::size_t needed =
      (mode == Mode::fwdbwd ? backward_shared_floats(p) : forward_shared_floats(p)) * sizeof(float);
  if (needed <= limits.shared_memory_per_block) return std::nullopt;
  return format(
      "naive keeps both fp32 states (%lldx%lld and %lldx%lld) in shared memory: needs %zu KiB, the "
      "device allows %zu KiB",
      static_cast<long long>(p.K), static_cast<long long>(p.M), static_cast<long long>(p.M),
      static_cast<long long>(p.V), needed / 1024, limits.shared_memory_per_block / 1024);
}

}  // namespace
}  // namespace gsa

Variant gsa_naive_variant() {
  Variant variant;
  variant.op = "gsa";
  variant.name = "naive";
  variant.description =
      "one block per (batch, key/value head) serving its query heads, both fp32 states in shared memory, one "
      "token at a time";
  variant.backend = Backend::cuda;
  variant.support.limits = gsa::shared_memory_limit;
  // checkpoints and scratch of the backward
  variant.workspace_bytes = [](const Problem& p, Mode mode, const DeviceLimits&) {
    return mode == Mode::fwdbwd ? gsa::workspace_floats(p) * sizeof(float) : 0;
  };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { gsa::forward<decltype(tag)>(call); });
  variant.backward =
      by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) { gsa::backward<decltype(tag)>(call); });
  return variant;
}

}  // namespace flabench
