// What every chunk kernel shares: the problem's sizes, the chunk's log decays as sub-chunk sums, and the
// staging of a chunk's rows into shared memory.
#pragma once

#include <cstdint>

#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/variant.h"

namespace flabench::chunk {

constexpr int kSubChunk = 16;
constexpr int kMaxChunk = 64;
constexpr int kPad = 4;  // floats added to a staged row: rows 4 banks apart keep fragment reads conflict-free

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

// The chunk's log decays as sub-chunk sums in shared memory, [token][channel] and [sub-chunk][channel], for
// `K` channels (all of the head's, or a tile of them): local (inclusive within the sub-chunk), total, and
// prefix (the sub-chunks before); seen() is what the token's output sees (inclusive, or exclusive when the
// output reads the state before the update). Every exponent the kernels take is composed from these sums,
// never the difference of two sums over the whole chunk, and is never positive (kernels/notes/chunk.md).
struct Decays {
  float *local, *total, *prefix;
  int K, subs;
  bool exclusive;

  __device__ static Decays carve(float* base, int C, int K) {
    const int subs = C / kSubChunk;
    return {base, base + C * K, base + C * K + subs * K, K, subs, false};
  }
  __host__ __device__ static int floats(int C, int K) { return C * K + (2 * (C / kSubChunk) + 1) * K; }

  // gate(t, c) is token t's log decay in channel c, for t < length (later tokens count as 0). One thread
  // per (sub-chunk, channel) sums its 16 tokens; the whole block calls this (it synchronises).
  template <class Gate>
  __device__ void build(const Gate& gate, int length, bool exclusive_sums) {
    exclusive = exclusive_sums;
    for (int item = threadIdx.x; item < subs * K; item += blockDim.x) {
      const int J = item / K, c = item % K;
      float sum = 0;
#pragma unroll
      for (int i = J * kSubChunk; i < (J + 1) * kSubChunk; ++i) {
        const float g = i < length ? gate(i, c) : 0.f;
        sum += g;
        local[i * K + c] = sum;
      }
      total[J * K + c] = sum;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < K; c += blockDim.x) {
      float before = 0;
      for (int J = 0; J < subs; ++J) {
        prefix[J * K + c] = before;
        before += total[J * K + c];
      }
      prefix[subs * K + c] = before;
    }
    __syncthreads();
  }
  // After token s to the end of sub-chunk upto - 1.
  __device__ float after(int s, int upto, int c) const {
    float sum = total[(s / kSubChunk) * K + c] - local[s * K + c];
    for (int M = s / kSubChunk + 1; M < upto; ++M) sum += total[M * K + c];
    return sum;
  }
  // Between the end of sub-chunk J and the start of sub-chunk I > J.
  __device__ float between(int J, int I, int c) const {
    float sum = 0;
    for (int M = J + 1; M < I; ++M) sum += total[M * K + c];
    return sum;
  }
  // Within token i's sub-chunk, up to and with it (or before it, exclusive).
  __device__ float seen(int i, int c) const {
    if (!exclusive) return local[i * K + c];
    return i % kSubChunk == 0 ? 0.f : local[(i - 1) * K + c];
  }
  __device__ float seen_from_start(int i, int c) const {
    return prefix[(i / kSubChunk) * K + c] + seen(i, c);
  }
  __device__ float pair(int i, int s, int c) const {  // Gq_i - G_s, s read by i
    if (s / kSubChunk == i / kSubChunk) return seen(i, c) - local[s * K + c];
    return seen(i, c) + after(s, i / kSubChunk, c);
  }
  __device__ float whole(int c) const {
    return prefix[subs * K + c];
  }
};

// The gate of token t0 + t, channel c, read from global memory (per key channel, or one per head).
template <class Form, class T>
struct GlobalGate {
  const T* g;
  const Dims& d;
  int b, h, t0;
  __device__ float operator()(int t, int c) const {
    const std::int64_t r = d.row(b, h, t0 + t);
    return to_float(Form::value.gate == GateKind::per_key ? g[r * d.K + c] : g[r]);
  }
};

// Stages rows t < rows of `cols` values from column `first` of rows `width` wide, as fp32, into
// out[t * ld + col] (ld >= cols; padding keeps the tensor cores' operand reads off one bank): zero past the
// sequence (t >= length) and past the row (first + col >= width). In 16-byte vectors: cols, first and width
// are multiples of 8 (every caller's head dims and tiles are), ld and out's offset multiples of 4.
template <class T>
__device__ void stage_tile(const T* src, const Dims& d, int b, int h, int t0, int length, int rows, int width,
                           int first, int cols, float* out, int ld) {
  constexpr int kVec = 16 / sizeof(T);
  const int per_row = cols / kVec;
  for (int idx = threadIdx.x; idx < rows * per_row; idx += blockDim.x) {
    const int t = idx / per_row, col = (idx % per_row) * kVec;
    float values[kVec] = {};
    if (t < length && first + col < width) {
      const uint4 raw = *reinterpret_cast<const uint4*>(src + d.row(b, h, t0 + t) * width + first + col);
      const T* x = reinterpret_cast<const T*>(&raw);
#pragma unroll
      for (int e = 0; e < kVec; ++e) values[e] = to_float(x[e]);
    }
    auto* to = reinterpret_cast<float4*>(out + t * ld + col);
#pragma unroll
    for (int e = 0; e < kVec / 4; ++e)
      to[e] = make_float4(values[4 * e], values[4 * e + 1], values[4 * e + 2], values[4 * e + 3]);
  }
}

}  // namespace flabench::chunk
