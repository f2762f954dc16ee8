// The device pieces fused_recurrent's kernels share: token rows, the key vectors a column pass stages, dot
// products, 16-byte loads and stores, per-head gates. How a head is spread over threads is in layout.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/fused_recurrent/column_record.h"
#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/lane_sum.cuh"
#include "kernels/common/recurrence.h"

namespace flabench::fused {

constexpr unsigned kFullWarp = 0xffffffffu;

// Row of token t of (batch b, head h) in a [B, T, H, ...] tensor (sequences g.sequence_stride tokens apart).
__device__ __forceinline__ std::int64_t token_row(int b, int t, int h, const Geometry& g) {
  return (std::int64_t(b) * g.sequence_stride + t) * g.H + h;
}

// sum_i a[i] * b[i], in four independent chains (the FMA latency, not the count, is the cost).
template <int N>
__device__ __forceinline__ float dot(const float (&a)[N], const float (&b)[N]) {
  float acc[4] = {0, 0, 0, 0};
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i & 3] = fmaf(a[i], b[i], acc[i & 3]);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// Eight bf16 in 16 bytes as floats: a bf16 is the top half of its float, one integer op each.
__device__ __forceinline__ void unpack_bf16x8(const uint4& raw, float* x) {
  const unsigned words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[2 * i] = __uint_as_float(words[i] << 16);
    x[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
  }
}

// Eight consecutive elements of type T from shared memory as floats (one 16-byte read for 2-byte types).
template <class T>
__device__ __forceinline__ void load8(const T* src, float (&x)[8]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    unpack_bf16x8(*reinterpret_cast<const uint4*>(src), x);
  } else if constexpr (sizeof(T) == 2) {
    const uint4 raw = *reinterpret_cast<const uint4*>(src);
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int i = 0; i < 8; ++i) x[i] = to_float(e[i]);
  } else {
    const float4 lo = reinterpret_cast<const float4*>(src)[0], hi = reinterpret_cast<const float4*>(src)[1];
    x[0] = lo.x, x[1] = lo.y, x[2] = lo.z, x[3] = lo.w, x[4] = hi.x, x[5] = hi.y, x[6] = hi.z, x[7] = hi.w;
  }
}
__device__ __forceinline__ void store8(float* dst, const float (&x)[8]) {
  reinterpret_cast<float4*>(dst)[0] = make_float4(x[0], x[1], x[2], x[3]);
  reinterpret_cast<float4*>(dst)[1] = make_float4(x[4], x[5], x[6], x[7]);
}

template <int N>
__device__ __forceinline__ void load_floats(float (&x)[N], const float* src) {
#pragma unroll
  for (int j = 0; j < N; j += 4) {
    const float4 f = *reinterpret_cast<const float4*>(src + j);
    x[j] = f.x, x[j + 1] = f.y, x[j + 2] = f.z, x[j + 3] = f.w;
  }
}

// A per-head gate [B, T, H] has 2 bytes per token in bf16, too few for cp.async: lane l holds the log decay
// of token l of the current chunk (of `tokens` <= 32) in a register, loaded one chunk ahead. For a per-key or
// per-value gate it does nothing and decay() is 1 (the decays come with the staged vectors).
template <class KV, class T>
struct HeadGates {
  const T* g;
  int b, h, T_, stride, H, chunks, tokens;
  bool reverse;
  float now = 0, next = 0;

  __device__ HeadGates(const T* gate, const Geometry& geometry, int b_, int h_, int chunks_, int tokens_,
                       bool reverse_)
      : g(gate),
        b(b_),
        h(h_),
        T_(geometry.T),
        stride(geometry.sequence_stride),
        H(geometry.H),
        chunks(chunks_),
        tokens(tokens_),
        reverse(reverse_) {
    if constexpr (KV::per_head_gate) next = load(0);
  }
  // Moves to chunk `index` (in visiting order) and starts loading the one after it.
  __device__ void advance(int index) {
    if constexpr (KV::per_head_gate) {
      now = next;
      if (index + 1 < chunks) next = load(index + 1);
    }
  }
  // exp of the gate at token s of the current chunk; the whole warp must call it together.
  __device__ float decay(int s) const {
    if constexpr (!KV::per_head_gate) return 1.0f;
    return exp_flushed(__shfl_sync(kFullWarp, now, s));
  }

 private:
  __device__ float load(int index) const {
    const int chunk = reverse ? chunks - 1 - index : index;
    const int t0 = chunk * tokens, lane = threadIdx.x & 31;
    return t0 + lane < T_ && lane < tokens ? to_float(g[(std::int64_t(b) * stride + t0 + lane) * H + h])
                                           : 0.0f;
  }
};

}  // namespace flabench::fused
