// What every chunk kernel shares: the problem's sizes and the chunk's log decays as sub-chunk sums.
#pragma once

#include <cstdint>

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/common/divisor.cuh"
#include "kernels/variant.h"

namespace flabench::chunk {

// Floats added to a staged row: rows 4 banks apart. The scores' scalar reads of fp32 fragments from them
// still meet 2-way conflicts, 18% of the operands pass's shared-memory wavefronts (kernels/notes/chunk.md,
// version 92).
constexpr int kPad = 4;

// The order of the two 16-byte halves of 8 neighbouring floats that one thread moves in a staged row (bf16's
// 16-byte vector of a row of q, k or g as fp32): the upper half first where the thread's 8-float group has
// bit 2 set (the offset of its first half, 0 or 4). A quarter warp's 8 threads (8 neighbouring groups of one
// row) then cover all 32 banks in each access; in order each access touched 16 banks twice, 2-way conflicts
// that were 37% of the operands pass's shared-memory wavefronts (kernels/notes/chunk.md, version 92).
__host__ __device__ constexpr int first_half(int group) {
  return group & 4;
}

struct Dims {
  int B, T, H, K, V, C;
  float scale;
  int G = 1;  // query heads to a key/value head (gsa's grouped queries): q and o have H G heads
  __host__ __device__ int chunks() const { return (T + C - 1) / C; }
  __host__ __device__ std::int64_t row(int b, int h, int t) const {
    return (std::int64_t(b) * T + t) * H + h;
  }
  // The dims of q and o, whose rows hold H G heads.
  __host__ __device__ Dims queries() const {
    Dims q = *this;
    q.H *= G, q.G = 1;
    return q;
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

  // Sums the raw log decays that stage_with_decays left in local (zero past the sequence) in place: one
  // thread per (sub-chunk, channel) over its 16 tokens, then the sub-chunks' prefixes. The whole block calls
  // this (it synchronises).
  __device__ void sum_staged(bool exclusive_sums) {
    exclusive = exclusive_sums;
    const Divisor channels(K);
    __syncthreads();
    for (int item = threadIdx.x; item < subs * K; item += blockDim.x) {
      const int J = channels.div(item), c = channels.mod(item);
      float sum = 0;
#pragma unroll
      for (int i = J * kSubChunk; i < (J + 1) * kSubChunk; ++i) {
        sum += local[i * K + c];
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
  // After token s to the end of sub-chunk upto - 1, for N neighbouring channels c0 .. c0 + N - 1 (read as
  // 16-byte vectors where N is a multiple of 4: the prepare kernel's, whose scalar reads of neighbouring
  // channels fell on a few banks; notes, version 29). order: sum[e] is channel c0 + (e ^ order), the halves
  // of 8 in first_half's order where order is 4.
  template <int N>
  __device__ void after(int s, int upto, int c0, float (&sum)[N], int order = 0) const {
    float at_s[N];
    read(total + (s / kSubChunk) * K + c0, sum, order);
    read(local + s * K + c0, at_s, order);
#pragma unroll
    for (int e = 0; e < N; ++e) sum[e] -= at_s[e];
    for (int M = s / kSubChunk + 1; M < upto; ++M) add(total + M * K + c0, sum, order);
  }
  __device__ float after(int s, int upto, int c) const {
    float sum[1];
    after(s, upto, c, sum);
    return sum[0];
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
  // The same for N neighbouring channels c0 .. c0 + N - 1 (as after).
  template <int N>
  __device__ void seen(int i, int c0, float (&to)[N]) const {
    if (!exclusive)
      read(local + i * K + c0, to);
    else if (i % kSubChunk != 0)
      read(local + (i - 1) * K + c0, to);
    else
#pragma unroll
      for (int e = 0; e < N; ++e) to[e] = 0;
  }
  // Seen from the chunk's start, for N neighbouring channels c0 .. c0 + N - 1 (as after).
  template <int N>
  __device__ void seen_from_start(int i, int c0, float (&sum)[N], int order = 0) const {
    read(prefix + (i / kSubChunk) * K + c0, sum, order);
    if (!exclusive)
      add(local + i * K + c0, sum, order);
    else if (i % kSubChunk != 0)
      add(local + (i - 1) * K + c0, sum, order);
  }
  __device__ float seen_from_start(int i, int c) const {
    float sum[1];
    seen_from_start(i, c, sum);
    return sum[0];
  }
  __device__ float pair(int i, int s, int c) const {  // Gq_i - G_s, s read by i
    if (s / kSubChunk == i / kSubChunk) return seen(i, c) - local[s * K + c];
    return seen(i, c) + after(s, i / kSubChunk, c);
  }
  __device__ float whole(int c) const {
    return prefix[subs * K + c];
  }

 private:
  // to[e] = at[e ^ order] (order 0, or 4 with N a multiple of 8: first_half's order).
  template <int N>
  __device__ static void read(const float* at, float (&to)[N], int order = 0) {
    if constexpr (N % 4 == 0) {
#pragma unroll
      for (int e = 0; e < N; e += 4)
        *reinterpret_cast<float4*>(to + e) = *reinterpret_cast<const float4*>(at + (e ^ order));
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) to[e] = at[e];
    }
  }
  template <int N>
  __device__ static void add(const float* at, float (&to)[N], int order = 0) {
    float more[N];
    read(at, more, order);
#pragma unroll
    for (int e = 0; e < N; ++e) to[e] += more[e];
  }
};

}  // namespace flabench::chunk
