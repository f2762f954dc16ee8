// Staging a chunk's rows into shared memory: tiles of the inputs, of a per-chunk state or of any row-major
// array, in 16-byte vectors, every tile's loads in flight together; and the chunk's log decays with them.
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/recurrence.h"

namespace flabench::chunk {

// The floats of shared memory a [rows][cols] tile of 16-bit inputs takes staged as it is, in rows of cols + 8
// (an odd number of 16-byte vectors: ldmatrix's 8 rows on distinct banks), or of other inputs staged as fp32
// in rows of cols + kPad.
__host__ __device__ inline int input_rows_floats(int rows, int cols, int input_bytes) {
  return input_bytes == 2 ? rows * (cols + 8) / 2 : rows * (cols + kPad);
}

// A 16-byte vector's place in a tile: its row and first column.
struct Place {
  int r, col;
};

// A [rows][cols] block of a row-major array to stage into out[r * ld + col], as fp32 or (Out = T) as it is:
// row r at base + r * stride; rows from valid_rows on and columns from valid_cols on read as zero. Moved in
// 16-byte vectors: cols and valid_cols are multiples of 16 / sizeof(T) (every caller's head dims and tiles
// are), ld and out's offset whole 16-byte vectors (padding keeps the tensor cores' operand reads off one
// bank).
//   Two ways to share the vectors among the block's threads (stage_tiles): where a row's vectors divide the
// threads (walkable: every tile of the presets), in rounds, each thread keeping one column and stepping a
// fixed number of rows, so its addresses advance by a constant; otherwise vector idx by row and column
// (place), a division each. The first costs a few instructions a vector, the second ~60: in the output pass
// that index arithmetic was a third of all instructions (kernels/notes/chunk.md, version 20).
// A tile's stride is an int, its addresses 64-bit: a 64-bit stride took a 64-bit multiply a vector. The
// variants' limits keep a token's row of every head (heads x width elements) within an int (token_rows_fit,
// checked with the scan's grid by launch.cuh's index_limits).
__host__ __device__ constexpr bool token_rows_fit(std::int64_t heads, std::int64_t width) {
  return heads * width <= std::int64_t(INT_MAX);
}

template <class T, class Out = float>
struct Tile {
  static constexpr int kVec = 16 / sizeof(T);
  const T* base;
  int stride;
  int rows, cols, valid_rows, valid_cols;
  Out* out;
  int ld;
  Divisor per_row;  // cols / kVec vectors to a row

  __device__ int vectors() const { return rows * (cols / kVec); }
  __device__ Place place(int idx) const { return {per_row.div(idx), per_row.mod(idx) * kVec}; }
  __device__ bool walkable() const {
    return per_row.power_of_two && (int(blockDim.x) & (per_row.n - 1)) == 0 &&
           (blockDim.x & (blockDim.x - 1)) == 0;
  }
  __device__ int rows_per_round() const { return int(blockDim.x) >> per_row.shift; }
  // A shift, not a division (~20 instructions, MUFU among them): rows_per_round is a power of two.
  __device__ int rounds() const { return (rows + rows_per_round() - 1) >> (__ffs(rows_per_round()) - 1); }
  __device__ Place place_in_round(int round) const {
    return {(int(threadIdx.x) >> per_row.shift) + round * rows_per_round(),
            (int(threadIdx.x) & (per_row.n - 1)) * kVec};
  }
  __device__ uint4 load(Place at) const {
    if (at.r >= rows || at.r >= valid_rows || at.col >= valid_cols) return uint4{0, 0, 0, 0};
    return *reinterpret_cast<const uint4*>(base + std::int64_t(at.r) * stride + at.col);
  }
  __device__ void store(Place at, const uint4& raw) const {
    if (at.r >= rows) return;
    if constexpr (std::is_same_v<Out, T>) {
      *reinterpret_cast<uint4*>(out + at.r * ld + at.col) = raw;
    } else if constexpr (kVec == 8 && std::is_same_v<Out, float>) {
      // 8 floats in two 16-byte stores, in first_half's order (decays.cuh: no bank conflicts)
      const bool swapped = first_half(at.col / kVec) != 0;
      const uint2 first = swapped ? make_uint2(raw.z, raw.w) : make_uint2(raw.x, raw.y),
                  second = swapped ? make_uint2(raw.x, raw.y) : make_uint2(raw.z, raw.w);
      const auto widen = [](const uint2& pair) {
        const T* x = reinterpret_cast<const T*>(&pair);
        return make_float4(to_float(x[0]), to_float(x[1]), to_float(x[2]), to_float(x[3]));
      };
      // indexed as float4s: a float pointer moved by a select and cast lost the 16-byte stores (four 4-byte
      // stores each, 4-way conflicts: version 92's first build)
      auto* halves = reinterpret_cast<float4*>(out + at.r * ld + at.col);
      halves[swapped ? 1 : 0] = widen(first);
      halves[swapped ? 0 : 1] = widen(second);
    } else {
      const T* x = reinterpret_cast<const T*>(&raw);
      auto* to = reinterpret_cast<float4*>(out + at.r * ld + at.col);
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
          d.H * width,
          rows,
          cols,
          min(rows, d.T - t0),
          width - first,
          out,
          ld,
          Divisor(cols / Tile<T, Out>::kVec)};
}

// Columns first .. first + cols of a whole [rows][width] row-major array (all of them by default).
template <class T, class Out>
__device__ Tile<T, Out> rows_of(const T* base, int rows, int width, int first, int cols, Out* out, int ld) {
  return {base + first, width, rows, cols, rows, width - first, out, ld, Divisor(cols / Tile<T, Out>::kVec)};
}
template <class T, class Out>
__device__ Tile<T, Out> rows_of(const T* base, int rows, int cols, Out* out, int ld) {
  return rows_of(base, rows, cols, 0, cols, out, ld);
}

// Rows c0 .. c0 + rows, columns j0 .. j0 + cols of one chunk's [K][V] fp32 state (or state gradient).
template <class Out = float>
__device__ Tile<float, Out> state_rows(const float* state, const Dims& d, int c0, int rows, int j0, int cols,
                                       Out* out, int ld) {
  return {state + std::int64_t(c0) * d.V + j0,   d.V, rows, cols, d.K - c0, d.V - j0, out, ld,
          Divisor(cols / Tile<float, Out>::kVec)};
}

// An fp32 tile staged as two 16-bit planes, its values' high and low parts (split in warp_mma.cuh): the
// tensor cores' fragments of both load by ldmatrix, and a product with the pair keeps ~16 bits, as one built
// element by element from fp32 rows did. The high plane is the tile's out, the low plane `plane` elements on.
template <class Op>
struct SplitTile {
  Tile<float, Op> rows;
  int plane;

  __device__ int vectors() const { return rows.vectors(); }
  __device__ Place place(int idx) const { return rows.place(idx); }
  __device__ bool walkable() const { return rows.walkable(); }
  __device__ int rounds() const { return rows.rounds(); }
  __device__ Place place_in_round(int round) const { return rows.place_in_round(round); }
  __device__ uint4 load(Place at) const { return rows.load(at); }
  __device__ void store(Place at, const uint4& raw) const {
    if (at.r >= rows.rows) return;
    const float* x = reinterpret_cast<const float*>(&raw);
    const Parts<Op> first = split<Op>(x[0], x[1]), second = split<Op>(x[2], x[3]);
    Op* high = rows.out + at.r * rows.ld + at.col;
    *reinterpret_cast<uint2*>(high) = make_uint2(first.high, second.high);
    *reinterpret_cast<uint2*>(high + plane) = make_uint2(first.low, second.low);
  }
};

// What a chunk's fp32 state (or state gradient) goes to the tensor cores as, by input type: two bf16 planes
// for either 16-bit input (fp16's range ends at 65504 and a state's does not: the battery's large_state
// case), fp32 rows for fp32 inputs (their products in 3xTF32, split as they are read: warp_mma.cuh).
template <class T>
using StatePart = std::conditional_t<sizeof(T) == 2, __nv_bfloat16, float>;

// Rows c0 .. c0 + rows, columns j0 .. j0 + cols of a chunk's fp32 state staged into `room` for the tensor
// cores: for a 16-bit Op as two planes of Op (SplitTile: rows of ld elements, the low plane after the high
// one), for float as fp32 rows of ld floats.
template <class Op>
__device__ auto staged_state(const float* state, const Dims& d, int c0, int rows, int j0, int cols,
                             float* room, int ld) {
  if constexpr (std::is_same_v<Op, float>)
    return state_rows(state, d, c0, rows, j0, cols, room, ld);
  else
    return SplitTile<Op>{state_rows(state, d, c0, rows, j0, cols, reinterpret_cast<Op*>(room), ld),
                         rows * ld};
}

// A gate per head and token, one float per token into out[t]: staged as a tile is, one 16-byte vector
// (holding the gate) per token. stage_with_decays repeats it over the channels afterwards.
template <class T>
struct HeadGateRows {
  const T* base;
  int stride;
  int rows, valid_rows;
  float* out;

  __device__ int vectors() const { return rows; }
  __device__ Place place(int t) const { return {t, 0}; }
  __device__ bool walkable() const { return (blockDim.x & (blockDim.x - 1)) == 0; }
  __device__ int rounds() const { return (rows + int(blockDim.x) - 1) >> (__ffs(blockDim.x) - 1); }
  __device__ Place place_in_round(int round) const { return {int(threadIdx.x) + round * int(blockDim.x), 0}; }
  __device__ uint4 load(Place at) const {
    uint4 raw{0, 0, 0, 0};
    if (at.r < valid_rows) *reinterpret_cast<T*>(&raw) = base[std::int64_t(at.r) * stride];
    return raw;
  }
  __device__ void store(Place at, const uint4& raw) const {
    if (at.r < rows) out[at.r] = to_float(*reinterpret_cast<const T*>(&raw));
  }
};

// Stages every tile (Tile, SplitTile, HeadGateRows), each thread's loads of all of them in flight before its
// first store: one trip to memory for the lot rather than one per tile.
template <class... Tiles>
__device__ void stage_tiles(const Tiles&... tiles) {
  if ((tiles.walkable() && ...)) {
    int rounds = 0;
    ((rounds = max(rounds, tiles.rounds())), ...);
    for (int round = 0; round < rounds; ++round) {
      const uint4 raw[] = {tiles.load(tiles.place_in_round(round))...};
      int e = 0;
      (tiles.store(tiles.place_in_round(round), raw[e++]), ...);
    }
  } else {
    int most = 0;
    ((most = max(most, tiles.vectors())), ...);
    for (int idx = threadIdx.x; idx < most; idx += blockDim.x) {
      const uint4 raw[] = {tiles.load(tiles.place(idx))...};
      int e = 0;
      (tiles.store(tiles.place(idx), raw[e++]), ...);
    }
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
  else {
    // The gates into total (free until the sums), then repeated over the channels of local a 16-byte vector
    // a thread: written by their own token's thread, the rows K floats apart fell on a few banks (up to
    // 32-way conflicts, 16 stores a token at K = 64; notes, version 30).
    stage_tiles(HeadGateRows<T>{g + d.row(b, h, t0), d.H, C, min(C, d.T - t0), dec.total}, tiles...);
    __syncthreads();
    const Divisor vectors(dec.K / 4);  // to a row
    for (int idx = threadIdx.x; idx < C * dec.K / 4; idx += blockDim.x) {
      const float gate = dec.total[vectors.div(idx)];
      reinterpret_cast<float4*>(dec.local)[idx] = make_float4(gate, gate, gate, gate);
    }
  }
  dec.sum_staged(Form::value.output_before_update);
}

}  // namespace flabench::chunk
