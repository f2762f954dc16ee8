// What every chunk kernel shares: the problem's sizes, the chunk's log decays as sub-chunk sums, and the
// staging of a chunk's rows into shared memory.
#pragma once

#include <cstdint>
#include <type_traits>

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

// x / n and x % n in the kernels' index arithmetic: a shift and a mask where n is a power of two (the head
// dims and tiles of every preset), the division otherwise. A division by a value known only at run time costs
// ~20 instructions; in the staging loops it was 29% of the output pass's instructions
// (kernels/notes/chunk.md).
struct Divisor {
  int n, shift;
  bool power_of_two;
  __device__ explicit Divisor(int n) : n(n), shift(0), power_of_two((n & (n - 1)) == 0) {
#ifdef __CUDA_ARCH__  // __ffs is a device intrinsic; the host pass only parses this
    shift = __ffs(n) - 1;
#endif
  }
  __device__ int div(int x) const {
    return power_of_two ? x >> shift : x / n;
  }
  __device__ int mod(int x) const {
    return power_of_two ? x & (n - 1) : x % n;
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

// A [rows][cols] block of a row-major array to stage into out[r * ld + col], as fp32 or (Out = T) as it is:
// row r at base + r * stride; rows from valid_rows on and columns from valid_cols on read as zero. Moved in
// 16-byte vectors: cols and valid_cols are multiples of 16 / sizeof(T) (every caller's head dims and tiles
// are), ld and out's offset whole 16-byte vectors (padding keeps the tensor cores' operand reads off one
// bank).
template <class T, class Out = float>
struct Tile {
  static constexpr int kVec = 16 / sizeof(T);
  const T* base;
  std::int64_t stride;
  int rows, cols, valid_rows, valid_cols;
  Out* out;
  int ld;
  Divisor per_row;  // cols / kVec vectors to a row

  __device__ int vectors() const { return rows * (cols / kVec); }
  __device__ uint4 load(int idx) const {
    const int r = per_row.div(idx), col = per_row.mod(idx) * kVec;
    if (idx >= vectors() || r >= valid_rows || col >= valid_cols) return uint4{0, 0, 0, 0};
    return *reinterpret_cast<const uint4*>(base + r * stride + col);
  }
  __device__ void store(int idx, const uint4& raw) const {
    if (idx >= vectors()) return;
    const int r = per_row.div(idx), col = per_row.mod(idx) * kVec;
    if constexpr (std::is_same_v<Out, T>) {
      *reinterpret_cast<uint4*>(out + r * ld + col) = raw;
    } else {
      const T* x = reinterpret_cast<const T*>(&raw);
      auto* to = reinterpret_cast<float4*>(out + r * ld + col);
#pragma unroll
      for (int e = 0; e < kVec / 4; ++e)
        to[e] = make_float4(to_float(x[4 * e]), to_float(x[4 * e + 1]), to_float(x[4 * e + 2]),
                            to_float(x[4 * e + 3]));
    }
  }
};

// Rows t0 .. t0 + rows of an input laid out [B, T, H, width], columns first .. first + cols.
template <class T, class Out>
__device__ Tile<T, Out> token_rows(const T* src, const Dims& d, int b, int h, int t0, int rows, int width,
                                   int first, int cols, Out* out, int ld) {
  return {src + d.row(b, h, t0) * width + first,
          std::int64_t(d.H) * width,
          rows,
          cols,
          min(rows, d.T - t0),
          width - first,
          out,
          ld,
          Divisor(cols / Tile<T, Out>::kVec)};
}

// A whole [rows][cols] row-major array.
template <class T, class Out>
__device__ Tile<T, Out> rows_of(const T* base, int rows, int cols, Out* out, int ld) {
  return {base, cols, rows, cols, rows, cols, out, ld, Divisor(cols / Tile<T, Out>::kVec)};
}

// Rows c0 .. c0 + rows, columns j0 .. j0 + cols of one chunk's [K][V] fp32 state (or state gradient).
__device__ inline Tile<float> state_rows(const float* state, const Dims& d, int c0, int rows, int j0,
                                         int cols, float* out, int ld) {
  return {state + std::int64_t(c0) * d.V + j0, d.V, rows, cols, d.K - c0, d.V - j0, out, ld,
          Divisor(cols / Tile<float>::kVec)};
}

// A gate per head and token, repeated over `K` channels of each row of out: staged as a tile is, one
// 16-byte vector (holding the gate) per token.
template <class T>
struct HeadGateRows {
  const T* base;
  std::int64_t stride;
  int rows, valid_rows;
  float* out;
  int K;

  __device__ int vectors() const { return rows; }
  __device__ uint4 load(int t) const {
    uint4 raw{0, 0, 0, 0};
    if (t < valid_rows) *reinterpret_cast<T*>(&raw) = base[t * stride];
    return raw;
  }
  __device__ void store(int t, const uint4& raw) const {
    if (t >= rows) return;
    const float g = to_float(*reinterpret_cast<const T*>(&raw));
    for (int c = 0; c < K; c += 4) *reinterpret_cast<float4*>(out + t * K + c) = make_float4(g, g, g, g);
  }
};

// Stages every tile (Tile, HeadGateRows), each thread's loads of all of them in flight before its first
// store: one trip to memory for the lot rather than one per tile.
template <class... Tiles>
__device__ void stage_tiles(const Tiles&... tiles) {
  int most = 0;
  ((most = max(most, tiles.vectors())), ...);
  for (int idx = threadIdx.x; idx < most; idx += blockDim.x) {
    const uint4 raw[] = {tiles.load(idx)...};
    int e = 0;
    (tiles.store(idx, raw[e++]), ...);
  }
}

// Stages the tiles and the chunk's log decays for key channels c0 .. c0 + dec.K (per-key gates a tile among
// the others; a per-head gate repeated over the channels), then sums the decays (Decays::sum_staged).
template <class Form, class T, class... Tiles>
__device__ void stage_with_decays(Decays& dec, const T* g, const Dims& d, int b, int h, int t0, int c0,
                                  const Tiles&... tiles) {
  const int C = d.C;
  if constexpr (Form::value.gate == GateKind::per_key)
    stage_tiles(token_rows(g, d, b, h, t0, C, d.K, c0, dec.K, dec.local, dec.K), tiles...);
  else
    stage_tiles(HeadGateRows<T>{g + d.row(b, h, t0), d.H, C, min(C, d.T - t0), dec.local, dec.K}, tiles...);
  dec.sum_staged(Form::value.output_before_update);
}

}  // namespace flabench::chunk
