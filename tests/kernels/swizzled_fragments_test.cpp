// mma.sync fragments read by ldmatrix from the fused forwards' swizzled token tiles
// (kernels/common/chunk/swizzled_fragments.h): with ldmatrix x4 written out as the PTX ISA defines it (lane
// 8 b + r addresses row r of block b; each lane receives two neighbouring elements of each block, of row
// lane / 4 at column 2 (lane % 4), or through .trans of column lane / 4 at row 2 (lane % 4)), every register
// element must be the operand element mma.sync's layout puts there (wgmma's register A: the same). And the
// conflict-free order of a warp's row pieces.
#include "kernels/common/chunk/swizzled_fragments.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "kernels/common/wgmma/layout.h"

namespace flabench::chunk {
namespace {

constexpr int kTokens = 64;

// A token tile of K channels whose element (t, c) holds t * 256 + c, stored where Tile::offset says.
std::vector<std::uint16_t> coded_tile(int K) {
  const wgmma::Tile tile{kTokens};
  std::vector<std::uint16_t> bytes(tile.bytes(K) / 2, 0xffff);
  for (int t = 0; t < kTokens; ++t)
    for (int c = 0; c < K; ++c) bytes[tile.offset(t, c) / 2] = std::uint16_t(t * 256 + c);
  return bytes;
}
int token_of(std::uint16_t code) {
  return code / 256;
}
int channel_of(std::uint16_t code) {
  return code % 256;
}

// ldmatrix .x4 (transposed or not) by the ISA: what each lane's four registers hold, as (low, high) elements.
using Registers = std::array<std::array<std::array<std::uint16_t, 2>, 4>, 32>;
template <Fragment kind>
Registers emulated_ldmatrix(const std::vector<std::uint16_t>& tile, int first, int step, bool transposed) {
  std::array<std::array<std::array<std::uint16_t, 8>, 8>, 4> blocks{};  // [block][row][element]
  for (int lane = 0; lane < 32; ++lane) {
    const PieceStart piece = fragment_piece<kind>(lane, first, step);
    const unsigned at = wgmma::Tile{kTokens}.offset(piece.token, piece.channel);
    EXPECT_EQ(at % 16, 0u) << "lane " << lane << ": a row piece is 16-byte aligned";
    for (int e = 0; e < 8; ++e) blocks[lane / 8][lane % 8][e] = tile[at / 2 + e];
  }
  Registers r{};
  for (int lane = 0; lane < 32; ++lane)
    for (int b = 0; b < 4; ++b)
      for (int x = 0; x < 2; ++x)
        r[lane][b][x] =
            transposed ? blocks[b][2 * (lane % 4) + x][lane / 4] : blocks[b][lane / 4][2 * (lane % 4) + x];
  return r;
}

TEST(SwizzledFragments, RowsAsStoredGiveTheAFragmentOfTheirTokens) {
  for (int K : {64, 128}) {
    const auto tile = coded_tile(K);
    for (int first : {0, 16, 48})
      for (int step = 0; step < K / 16; ++step) {
        const Registers r = emulated_ldmatrix<Fragment::a_rows>(tile, first, step, false);
        for (int lane = 0; lane < 32; ++lane)
          for (int e = 0; e < 8; ++e) {  // register e / 2, its half e % 2
            const wgmma::Element want = wgmma::a_fragment_element(lane, e);
            const std::uint16_t got = r[lane][e / 2][e % 2];
            EXPECT_EQ(token_of(got), first + want.row)
                << K << " " << first << " " << step << " " << lane << " " << e;
            EXPECT_EQ(channel_of(got), 16 * step + want.column)
                << K << " " << first << " " << step << " " << lane;
          }
      }
  }
}

// mma.sync m16n8k16's B (16 x 8, "col"): a lane's b0, b1 are rows k = 2 (lane % 4), + 1 of column n = lane /
// 4, b2, b3 the same + 8. Registers 0, 1 are the first 8-token tile's, 2, 3 the second's.
TEST(SwizzledFragments, RowsAsStoredGiveTheBFragmentsOfTwoTokenTiles) {
  for (int K : {64, 128}) {
    const auto tile = coded_tile(K);
    for (int first : {0, 32, 48})
      for (int step = 0; step < K / 16; ++step) {
        const Registers r = emulated_ldmatrix<Fragment::b_rows>(tile, first, step, false);
        for (int lane = 0; lane < 32; ++lane)
          for (int reg = 0; reg < 4; ++reg)
            for (int x = 0; x < 2; ++x) {
              const int n = first + 8 * (reg / 2) + lane / 4,
                        k = 16 * step + 8 * (reg % 2) + 2 * (lane % 4) + x;
              EXPECT_EQ(token_of(r[lane][reg][x]), n) << K << " " << first << " " << step << " " << lane;
              EXPECT_EQ(channel_of(r[lane][reg][x]), k) << K << " " << first << " " << step << " " << lane;
            }
      }
  }
}

TEST(SwizzledFragments, TransposedGiveTheAFragmentOfChannelsByTokens) {
  for (int K : {64, 128}) {
    const auto tile = coded_tile(K);
    for (int first = 0; first < K; first += 16)
      for (int step = 0; step < kTokens / 16; ++step) {
        const Registers r = emulated_ldmatrix<Fragment::a_transposed>(tile, first, step, true);
        for (int lane = 0; lane < 32; ++lane)
          for (int e = 0; e < 8; ++e) {
            const wgmma::Element want =
                wgmma::a_fragment_element(lane, e);  // row: a channel, column: a token
            const std::uint16_t got = r[lane][e / 2][e % 2];
            EXPECT_EQ(channel_of(got), first + want.row) << K << " " << first << " " << step << " " << lane;
            EXPECT_EQ(token_of(got), 16 * step + want.column)
                << K << " " << first << " " << step << " " << lane;
          }
      }
  }
}

// What the kernel's per-channel and per-key factors read: register_channel and register_row name the element
// each register holds.
TEST(SwizzledFragments, RegisterChannelsAndRowsNameWhatTheRegistersHold) {
  const auto tile = coded_tile(128);
  for (int step = 0; step < 8; ++step)
    for (int first : {0, 48}) {
      const Registers a = emulated_ldmatrix<Fragment::a_rows>(tile, first, step, false);
      const Registers b = emulated_ldmatrix<Fragment::b_rows>(tile, first, step, false);
      const Registers t = emulated_ldmatrix<Fragment::a_transposed>(tile, 16 * (step % 8), step % 4, true);
      for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < 4; ++j)
          for (int x = 0; x < 2; ++x) {
            EXPECT_EQ(channel_of(a[lane][j][x]), register_channel<Fragment::a_rows>(lane, step, j) + x);
            EXPECT_EQ(token_of(a[lane][j][x]), register_row(lane, first, j));
            EXPECT_EQ(channel_of(b[lane][j][x]), register_channel<Fragment::b_rows>(lane, step, j) + x);
            EXPECT_EQ(channel_of(t[lane][j][x]), register_row(lane, 16 * (step % 8), j));
          }
    }
}

// stmatrix .x4 by the ISA into rows of `ld` elements (row t at t * ld), each lane pointing at the row piece
// ldmatrix would read (fragment_piece: token row, channel column): lane 8 b + r gives row r of block b, and
// register b of lane L holds block b's row L / 4, columns 2 (L % 4) and + 1, which .trans stores down the
// column: at row 2 (L % 4) + x, element L / 4. Each lane's registers hold the coded A fragment (channel rows,
// token columns) that a_fragment_element places, as an accumulator made transposed holds its registers.
std::vector<std::uint16_t> emulated_stmatrix(int ld, int first, int step, bool transposed) {
  std::vector<std::uint16_t> rows(kTokens * ld, 0xffff);
  std::array<unsigned, 32> piece_at{};
  for (int lane = 0; lane < 32; ++lane) {
    const PieceStart piece = fragment_piece<Fragment::a_transposed>(lane, first, step);
    piece_at[lane] = unsigned(piece.token * ld + piece.channel);
    EXPECT_EQ(piece_at[lane] % 8, 0u) << "lane " << lane << ": a row piece is 16-byte aligned";
  }
  for (int lane = 0; lane < 32; ++lane)
    for (int b = 0; b < 4; ++b)
      for (int x = 0; x < 2; ++x) {
        const wgmma::Element e = wgmma::a_fragment_element(lane, 2 * b + x);  // row: a channel
        const std::uint16_t code = std::uint16_t((16 * step + e.column) * 256 + first + e.row);
        const int row = transposed ? 2 * (lane % 4) + x : lane / 4,
                  element = transposed ? lane / 4 : 2 * (lane % 4) + x;
        rows[piece_at[8 * b + row] + element] = code;
      }
  return rows;
}

TEST(SwizzledFragments, TransposedStoresPutTheAFragmentBackAsTokenRows) {
  const int ld = 136;  // a staged output's rows: 128 channels and 16 bytes more
  for (int first : {0, 16, 112})
    for (int step = 0; step < kTokens / 16; ++step) {
      const auto rows = emulated_stmatrix(ld, first, step, true);
      for (int t = 16 * step; t < 16 * step + 16; ++t)
        for (int c = first; c < first + 16; ++c)
          EXPECT_EQ(rows[t * ld + c], t * 256 + c) << first << " " << step << " " << t << " " << c;
    }
  int misplaced = 0;  // the emulation's mutation check: without the transpose the elements land elsewhere
  const auto rows = emulated_stmatrix(ld, 0, 0, false);
  for (int t = 0; t < 16; ++t)
    for (int c = 0; c < 16; ++c) misplaced += rows[t * ld + c] != t * 256 + c;
  EXPECT_GT(misplaced, 16 * 16 / 2);
}

// A mutation check of the emulation itself: the same pieces read without the transpose are not the fragment.
TEST(SwizzledFragments, TheTransposeMatters) {
  const auto tile = coded_tile(64);
  const Registers r = emulated_ldmatrix<Fragment::a_transposed>(tile, 0, 0, false);
  int matching = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < 8; ++e) {
      const wgmma::Element want = wgmma::a_fragment_element(lane, e);
      const std::uint16_t got = r[lane][e / 2][e % 2];
      matching += channel_of(got) == want.row && token_of(got) == want.column;
    }
  EXPECT_LT(matching, 32 * 8 / 4);
}

// The 16-byte slot of the swizzle's 128-byte pattern (eight, each four banks) that a piece starting at (row,
// column) of a token tile takes: a quarter warp's accesses are one wavefront where their slots differ.
int swizzle_slot(int row, int column) {
  return int(wgmma::Tile{kTokens}.offset(row, column) % 128) / 16;
}
template <class Piece>
int quarters_with_shared_slots(const Piece& piece, int first_row) {
  int conflicted = 0;
  for (int quarter = 0; quarter < 4; ++quarter) {
    std::set<int> slots;
    for (int lane = 8 * quarter; lane < 8 * quarter + 8; ++lane) {
      const TilePiece p = piece(lane);
      slots.insert(swizzle_slot(first_row + p.row, p.column));
    }
    conflicted += slots.size() != 8;
  }
  return conflicted;
}

// conflict_free_piece (the fused forward's making of its decayed values and its stores): a warp's 32 pieces
// cover its warp_piece_rows rows of 32 or 64 values once each, and at every first row of those steps each
// quarter warp's eight pieces take eight different slots; the lanes in plain order (a quarter warp on two
// neighbouring rows at 32 values) do not.
template <int kRowPieces>
void expect_conflict_free_pieces() {
  const int rows = warp_piece_rows(kRowPieces);
  std::set<std::pair<int, int>> covered;
  for (int lane = 0; lane < 32; ++lane) {
    const TilePiece p = conflict_free_piece<kRowPieces>(lane);
    EXPECT_TRUE(p.row >= 0 && p.row < rows && p.column % 8 == 0 && p.column < 8 * kRowPieces) << lane;
    covered.insert({p.row, p.column});
  }
  EXPECT_EQ(covered.size(), 32u);
  for (int first = 0; first < kTokens; first += rows)
    EXPECT_EQ(quarters_with_shared_slots(conflict_free_piece<kRowPieces>, first), 0) << "first row " << first;
}

TEST(SwizzledFragments, ConflictFreePiecesCoverTheirRowsAndTakeEightSlotsAQuarterWarp) {
  expect_conflict_free_pieces<4>();
  expect_conflict_free_pieces<8>();
  const auto plain = [](int lane) {
    return TilePiece{lane / 4, 8 * (lane % 4)};
  };  // 32 values, lanes in order
  EXPECT_EQ(quarters_with_shared_slots(plain, 0), 4);
}

}  // namespace
}  // namespace flabench::chunk
