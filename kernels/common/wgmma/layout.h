// Hopper's warpgroup products (wgmma, sm_90a) read their shared-memory operands through a 64-bit descriptor
// and give each of the warpgroup's 128 threads fixed elements of the accumulator. The arithmetic of both, on
// the host too, so that CPU tests check it against the PTX ISA's canonical layouts before a GPU runs it
// (tests/kernels/wgmma_layout_test.cpp); the instructions themselves are in wgmma.cuh.
//
// One shared-memory layout serves every operand: 16-bit elements in the 128-byte swizzle. A tile is stored as
// panels of 64 columns; a panel is `rows` rows of 128 bytes, and the eight 16-byte pieces of row r are
// permuted by r % 8 (piece index XOR r % 8), so that any 16-byte column of eight neighbouring rows spans all
// 32 banks. A tile starts on a 1024-byte boundary (where the swizzle's pattern starts, so that every
// descriptor's base offset is 0) and `rows` is a multiple of 8.
// - K-major operands (A as M x K, B as N x K: the depth runs along a row): the tile's rows are the M (or N)
//   index, its columns the depth. Token-major q and k tiles are the K-major operands of q k^T.
// - MN-major operands (the instruction's trans-a / trans-b set): the tile's rows are the depth, its columns
//   the M (or N) index. A token-major v tile is the MN-major B of P v, a token-major k tile the MN-major A
//   of k^T v.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstdint>

namespace flabench::wgmma {

inline constexpr int kRowBytes = 128;  // a panel row: 64 16-bit elements
inline constexpr int kPanelColumns = 64;
inline constexpr int kGroupBytes = 1024;  // eight rows: the swizzle's pattern
inline constexpr int kDepth = 16;         // an instruction's depth (k) for 16-bit inputs
inline constexpr int kRows = 64;          // an instruction's M

// Byte offset of element (row, column) within a panel (column < 64).
__host__ __device__ constexpr unsigned swizzled_offset(int row, int column) {
  return unsigned(row) * kRowBytes + (unsigned((column >> 3) ^ (row & 7)) << 4) + (unsigned(column & 7) << 1);
}

// A tile of `rows` rows (a multiple of 8) and any multiple of 64 columns.
struct Tile {
  int rows;
  __host__ __device__ constexpr unsigned panel_bytes() const { return unsigned(rows) * kRowBytes; }
  __host__ __device__ constexpr unsigned offset(int row, int column) const {
    return unsigned(column / kPanelColumns) * panel_bytes() + swizzled_offset(row, column % kPanelColumns);
  }
  __host__ __device__ constexpr unsigned bytes(int columns) const {
    return unsigned((columns + kPanelColumns - 1) / kPanelColumns) * panel_bytes();
  }
};

// The descriptor's fields (PTX ISA, "Matrix Descriptor Format"): the start address, the leading and stride
// byte offsets, each as (x & 0x3FFFF) >> 4; base offset 0; bits 62-63 the swizzle (1: 128 bytes).
__host__ __device__ constexpr std::uint64_t encode(unsigned bytes) {
  return (bytes & 0x3FFFFu) >> 4;
}
__host__ __device__ constexpr std::uint64_t descriptor(unsigned start, unsigned leading, unsigned stride) {
  return encode(start) | encode(leading) << 16 | encode(stride) << 32 | std::uint64_t(1) << 62;
}

// Descriptor d moved on by `bytes` (a multiple of 16). Its start field is the shared-window address over 16
// in bits 0-13, and every address in the window is below 2^18 (228 KiB at most), so the move is an add to the
// low word that never carries out of the field. Kept apart from the tile's descriptor so that a kernel's
// products make one descriptor a tile and add each step's offset, a constant once the steps are unrolled,
// to the low word alone: the high word stays a constant, and ptxas forms a descriptor with one add where
// the mask and shift of descriptor() took about ten instructions (kernels/notes/chunk.md, version 76).
__host__ __device__ constexpr std::uint64_t moved(std::uint64_t d, unsigned bytes) {
  return (d & 0xFFFFFFFF00000000ull) | std::uint32_t(std::uint32_t(d) + (bytes >> 4));
}

// The operand of one instruction read from a tile at shared-window address `base`.
// K-major: rows first_row .. first_row + 63 (or N) and depth step `step` (columns 16 step .. 16 step + 15).
// The leading offset is unused in the swizzled K-major layouts (the ISA says "assumed 1": 16 bytes); the
// stride offset steps eight rows. A step inside a panel moves the start by 32 bytes: the hardware swizzles
// the address it forms, so the start may point into the pattern as long as the tile's base is aligned.
__host__ __device__ constexpr std::uint64_t k_major(unsigned base, Tile tile, int first_row, int step) {
  return moved(descriptor(base, 16, kGroupBytes), tile.offset(first_row, kDepth * step));
}
// MN-major: depth step `step` (rows 16 step .. 16 step + 15) and columns first_column .. (a multiple of 64,
// or of 32 for an instruction 32 wide: its columns then start 64 bytes into each row of the panel, which the
// hardware swizzles as it does a K-major step's start); the leading offset steps from one 64-column panel to
// the next (an instruction wider than 64), the stride offset eight rows of depth.
__host__ __device__ constexpr std::uint64_t mn_major(unsigned base, Tile tile, int first_column, int step) {
  return moved(descriptor(base, tile.panel_bytes(), kGroupBytes), tile.offset(kDepth * step, first_column));
}

// Which element of the 64 x N fp32 accumulator thread `thread` (0..127) holds in its register r (0 .. N/2 -
// 1): warp w of the warpgroup has rows 16 w .. 16 w + 15; each 8-column block takes four registers a thread,
// a row pair (lane / 4, + 8) by a column pair (2 (lane % 4), + 1).
struct Element {
  int row, column;
  friend constexpr bool operator==(Element, Element) = default;
};
__host__ __device__ constexpr Element accumulator_element(int thread, int r) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((r >> 1) & 1), 8 * (r >> 2) + 2 * (lane & 3) + (r & 1)};
}
// Whether thread `thread` holds its rows' diagonal elements (i, i) in a 64-column accumulator: its rows' i %
// 8 (lane / 4) is one of its column pair 2 (lane % 4), + 1 (one thread of each quad).
__host__ __device__ constexpr bool holds_diagonal(int thread) {
  const int lane = thread % 32;
  return (lane & 3) == (lane >> 3);
}
// Which element of a 64 x 16 A operand held in registers thread `thread` holds as its element e (0..7, two to
// a 32-bit register): rows as the accumulator's, depth columns (2 (lane % 4), + 1) and those + 8.
__host__ __device__ constexpr Element a_fragment_element(int thread, int e) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((e >> 1) & 1), 8 * (e >> 2) + 2 * (lane & 3) + (e & 1)};
}
// So an accumulator's registers 8 s .. 8 s + 7 are, in order, the A fragment of its columns 16 s .. 16 s +
// 15: a product's result (P = q k^T) feeds the next product (P v) from registers, converted but not moved.

}  // namespace flabench::wgmma
