// mma.sync's operand fragments read by ldmatrix from a 128-byte-swizzled token tile (kernels/common/wgmma/
// layout.h: rows tokens, columns channels), as simple_gla's gradients kernel (kernels/simple_gla/
// chunk_grads_wgmma.cu) reads its tiles:
// which 16-byte row piece each lane points ldmatrix (x4) at; and the order in which a warp's lanes take a
// tile's row pieces without bank conflicts. Host-safe, so that
// tests/kernels/swizzled_fragments_test.cpp checks on the CPU, by ldmatrix's definition, that the registers
// it returns are the fragments mma.sync (and wgmma's A from registers) expect.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

namespace flabench::chunk {

// a_rows: the A fragment (16 x 16) of rows first .. first + 15 (tokens) and channels 16 step .. as stored;
// b_rows: the B fragments of two 8-token tiles, tokens first .. first + 15, channels 16 step .. as stored;
// a_transposed: the A fragment of rows first .. first + 15 (channels) and depth 16 step .. (tokens), through
// ldmatrix's transpose.
enum class Fragment { a_rows, b_rows, a_transposed };

// The tile element (token, channel) that starts the eight-element row piece lane `lane` gives ldmatrix.
// ldmatrix x4 reads four 8 x 8 blocks, block b's row r from lane 8 b + r, and returns block b in register b.
struct PieceStart {
  int token, channel;
};
template <Fragment kind>
__host__ __device__ constexpr PieceStart fragment_piece(int lane, int first, int step) {
  const int block = lane / 8, row = lane % 8;
  if constexpr (kind == Fragment::a_rows)  // registers: rows +0 / +8, then channels +8
    return {first + row + 8 * (block & 1), 16 * step + 8 * (block >> 1)};
  else if constexpr (kind == Fragment::b_rows)  // registers: channels +0 / +8, then tokens +8
    return {first + row + 8 * (block >> 1), 16 * step + 8 * (block & 1)};
  else  // registers: channels (A's rows) +0 / +8, then tokens (its depth) +8
    return {16 * step + row + 8 * (block >> 1), first + 8 * (block & 1)};
}

// Which channel register j (0..3) of a lane's fragment holds (its low element; the high one is the next
// channel), for a_rows and b_rows: what a caller scaling a fragment by a per-channel factor reads.
template <Fragment kind>
__host__ __device__ constexpr int register_channel(int lane, int step, int j) {
  static_assert(kind != Fragment::a_transposed, "a transposed fragment's rows are channels: register_row");
  return 16 * step + 2 * (lane % 4) + 8 * (kind == Fragment::a_rows ? j >> 1 : j & 1);
}
// Which row of the A operand register j of an a_rows or a_transposed fragment holds, from `first`: a token
// (a_rows) or a channel (a_transposed).
__host__ __device__ constexpr int register_row(int lane, int first, int j) {
  return first + lane / 4 + 8 * (j & 1);
}

// Where a lane's 16-byte piece lies among a warp's pieces of token rows of 32 or 64 values (kRowPieces 4 or 8
// a row) in a 128-byte-swizzled tile, as the fused forward's state makes its decayed values and its outputs
// are stored (fused_roles.cuh): its row (of the warp's warp_piece_rows) and first column. Each quarter warp's
// eight pieces fall in eight different 16-byte slots of the swizzle's pattern: a whole row at 64 values, at
// 32 two rows four apart (two neighbouring rows share their four slots, so a quarter warp on them is a
// two-way bank conflict: 48% of the state's making's wavefronts were excess, kernels/notes/chunk.md, version
// 118). tests/kernels/swizzled_fragments_test.cpp checks both on the CPU.
struct TilePiece {
  int row, column;
};
// rows a warp's 32 pieces cover at once
__host__ __device__ constexpr int warp_piece_rows(int row_pieces) {
  return 32 / row_pieces;
}
template <int kRowPieces>
__host__ __device__ constexpr TilePiece conflict_free_piece(int lane) {
  static_assert(kRowPieces == 4 || kRowPieces == 8, "32 or 64 values");
  const int quarter = lane / 8, j = lane % 8;
  if constexpr (kRowPieces == 4) return {quarter + 4 * (j / 4), 8 * (j % 4)};
  return {quarter, 8 * j};
}

}  // namespace flabench::chunk
