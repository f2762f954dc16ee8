// Staging a chunk's rows into shared memory: tiles of the inputs, of a per-chunk state or of any row-major
// array, in 16-byte vectors, every tile's loads in flight together; and the chunk's log decays with them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/recurrence.h"

namespace flabench::chunk {

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
