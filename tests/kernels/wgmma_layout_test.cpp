// The warpgroup products' layouts (kernels/common/wgmma/layout.h) against the PTX ISA: where the hardware
// reads each element of an operand, given a descriptor, by the ISA's canonical layouts (wgmma_model.h), must
// be where the tile stores it; the accumulator's and the register A operand's elements must cover their
// matrices once each. A GPU test (tests/gpu/wgmma_product_test.cpp) runs the instructions themselves.
#include "kernels/common/wgmma/layout.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "tests/kernels/wgmma_model.h"

namespace flabench::wgmma {
namespace {

using testing::k_major_address;
using testing::leading_of;
using testing::mn_major_address;
using testing::stride_of;

constexpr unsigned kBase = 0x3000;  // a 1024-byte boundary, not 0

TEST(WgmmaLayout, EachEightRowGroupIsAPermutationThatKeepsPiecesWhole) {
  std::set<unsigned> seen;
  for (int row = 0; row < 8; ++row)
    for (int column = 0; column < 64; ++column) {
      const unsigned at = swizzled_offset(row, column);
      EXPECT_LT(at, 1024u);
      EXPECT_TRUE(seen.insert(at).second) << row << "," << column;
      EXPECT_EQ(at, swizzled_offset(row, column & ~7) + 2 * (column & 7));  // 16-byte pieces stay whole
    }
  EXPECT_EQ(swizzled_offset(8, 0), 1024u);
}

TEST(WgmmaLayout, APieceColumnOfEightRowsSpansEveryBank) {
  for (int piece = 0; piece < 8; ++piece) {
    std::set<unsigned> banks;  // 16-byte bank groups: the offset's bits 4-6
    for (int row = 0; row < 8; ++row) banks.insert(swizzled_offset(row, 8 * piece) % 128 / 16);
    EXPECT_EQ(banks.size(), 8u) << piece;
  }
}

TEST(WgmmaLayout, PanelsFollowEachOther) {
  const Tile tile{48};
  EXPECT_EQ(tile.panel_bytes(), 48u * 128);
  EXPECT_EQ(tile.offset(0, 64), 48u * 128);
  EXPECT_EQ(tile.offset(5, 130), 2 * 48u * 128 + swizzled_offset(5, 2));
  EXPECT_EQ(tile.bytes(128), 2 * 48u * 128);
  EXPECT_EQ(tile.bytes(32), 48u * 128);  // a narrower tile still takes a whole panel's rows
}

TEST(WgmmaLayout, DescriptorFieldsAsThePtxIsaEncodesThem) {
  const std::uint64_t d = descriptor(0x1230, 2048, 1024);
  EXPECT_EQ(d & 0x3FFF, 0x123u);
  EXPECT_EQ(d >> 16 & 0x3FFF, 128u);
  EXPECT_EQ(d >> 32 & 0x3FFF, 64u);
  EXPECT_EQ(d >> 49 & 7, 0u);  // base offset: the tiles start on the pattern's boundary
  EXPECT_EQ(d >> 62, 1u);      // the 128-byte swizzle
  EXPECT_EQ(d & (std::uint64_t(0x3) << 14 | std::uint64_t(0x3) << 30 | std::uint64_t(0x7FF) << 51), 0u);
  // The ISA's own example (MN-major, 64-byte swizzle, bf16): LBO 256 elements encodes as 32, SBO 512 as 64.
  EXPECT_EQ(encode(256 * 2), 32u);
  EXPECT_EQ(encode(512 * 2), 64u);
  EXPECT_EQ(encode(0x40000 + 0x100), 0x10u);  // (x & 0x3FFFF) >> 4: shared-window addresses below 256 KiB
}

// The kernels move a tile's descriptor to each step's offset by an add to its low word: the same descriptor
// as one made at the moved address, for every 16-byte address of the shared window up to its last (228 KiB),
// the high word untouched; past 2^18 bytes the add would carry into the leading offset, which is why the
// window's size is the bound.
TEST(WgmmaLayout, AMovedDescriptorIsTheDescriptorAtTheMovedAddress) {
  constexpr unsigned kWindow = 228 * 1024;
  for (unsigned base = 0; base < kWindow; base += 1024)
    for (unsigned bytes = 0; base + bytes < kWindow; bytes += 16 * 997) {
      const std::uint64_t d = descriptor(base, 8192, kGroupBytes);
      ASSERT_EQ(moved(d, bytes), descriptor(base + bytes, 8192, kGroupBytes)) << base << " + " << bytes;
      ASSERT_EQ(moved(d, bytes) >> 32, d >> 32);
    }
  EXPECT_NE(moved(descriptor(0x3FFF0, 16, kGroupBytes), 16), descriptor(0x40000, 16, kGroupBytes));
}

TEST(WgmmaLayout, KMajorDescriptorsReadEachElementWhereTheTileHoldsIt) {
  for (int rows : {64, 128})
    for (int columns : {64, 128}) {
      const Tile tile{rows};
      for (int first_row = 0; first_row < rows; first_row += 64)
        for (int step = 0; step < columns / kDepth; ++step) {
          const std::uint64_t d = k_major(kBase, tile, first_row, step);
          EXPECT_EQ(leading_of(d), 16u);  // unused here; the ISA assumes 1 (16 bytes)
          for (int mn = 0; mn < 64; ++mn)
            for (int k = 0; k < kDepth; ++k)
              ASSERT_EQ(k_major_address(d, mn, k), kBase + tile.offset(first_row + mn, kDepth * step + k))
                  << "rows " << rows << " columns " << columns << " first row " << first_row << " step "
                  << step << " element " << mn << "," << k;
        }
    }
}

TEST(WgmmaLayout, MNMajorDescriptorsReadEachElementWhereTheTileHoldsIt) {
  for (int rows : {64, 128})
    for (int columns : {64, 128, 256}) {
      const Tile tile{rows};
      for (int width : {32, 64, 128}) {
        if (width > columns) continue;
        for (int first_column = 0; first_column + width <= columns; first_column += 64)
          for (int step = 0; step < rows / kDepth; ++step) {
            const std::uint64_t d = mn_major(kBase, tile, first_column, step);
            for (int mn = 0; mn < width; ++mn)
              for (int k = 0; k < kDepth; ++k)
                ASSERT_EQ(mn_major_address(d, mn, k),
                          kBase + tile.offset(kDepth * step + k, first_column + mn))
                    << "rows " << rows << " columns " << columns << " width " << width << " first column "
                    << first_column << " step " << step << " element " << mn << "," << k;
          }
      }
    }
}

TEST(WgmmaLayout, AccumulatorRegistersCoverTheTileOnce) {
  for (int n : {32, 64, 128}) {
    std::set<std::pair<int, int>> seen;
    for (int thread = 0; thread < 128; ++thread)
      for (int r = 0; r < n / 2; ++r) {
        const Element e = accumulator_element(thread, r);
        ASSERT_TRUE(e.row >= 0 && e.row < 64 && e.column >= 0 && e.column < n);
        ASSERT_TRUE(seen.insert({e.row, e.column}).second) << n << ": " << thread << "," << r;
      }
    EXPECT_EQ(seen.size(), 64u * n);
  }
}

// What kernels lean on to treat a warp's elements alike: warp w holds rows 16 w .. 16 w + 15, and registers
// 8 s .. 8 s + 7 columns 16 s .. 16 s + 15 (one 16-token sub-chunk each way where rows and columns are a
// chunk's tokens: simple_gla's fused forward decays its scores so).
TEST(WgmmaLayout, AWarpHoldsSixteenRowsAndEightRegistersSixteenColumns) {
  for (int thread = 0; thread < 128; ++thread)
    for (int r = 0; r < 64; ++r) {
      const Element e = accumulator_element(thread, r);
      EXPECT_EQ(e.row / 16, thread / 32);
      EXPECT_EQ(e.column / 16, r / 8);
      EXPECT_EQ(e.row, accumulator_element(thread, 0).row + 8 * (r >> 1 & 1));
    }
}

// holds_diagonal names the one thread of each quad whose registers hold its two rows' diagonal elements
// (simple_gla's gradients kernel writes M's diagonal from that thread alone).
TEST(WgmmaLayout, OneThreadOfEachQuadHoldsItsRowsDiagonal) {
  std::set<int> rows;
  for (int thread = 0; thread < 128; ++thread) {
    int held = 0;
    for (int r = 0; r < 32; ++r) {
      const Element e = accumulator_element(thread, r);
      if (e.row == e.column) ++held, rows.insert(e.row);
    }
    EXPECT_EQ(held, holds_diagonal(thread) ? 2 : 0) << thread;
  }
  EXPECT_EQ(rows.size(), 64u);
}

TEST(WgmmaLayout, RegisterOperandElementsCoverTheOperandOnce) {
  std::set<std::pair<int, int>> seen;
  for (int thread = 0; thread < 128; ++thread)
    for (int e = 0; e < 8; ++e) {
      const Element at = a_fragment_element(thread, e);
      ASSERT_TRUE(at.row >= 0 && at.row < 64 && at.column >= 0 && at.column < kDepth);
      ASSERT_TRUE(seen.insert({at.row, at.column}).second) << thread << "," << e;
    }
  EXPECT_EQ(seen.size(), 64u * kDepth);
}

TEST(WgmmaLayout, AnAccumulatorsRegistersAreTheRegisterOperandOfItsColumns) {
  for (int thread = 0; thread < 128; ++thread)
    for (int step = 0; step < 8; ++step)
      for (int e = 0; e < 8; ++e) {
        const Element a = a_fragment_element(thread, e);
        EXPECT_EQ(accumulator_element(thread, 8 * step + e), (Element{a.row, a.column + kDepth * step}));
      }
}

}  // namespace
}  // namespace flabench::wgmma
