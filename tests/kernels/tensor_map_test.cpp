// The TMA maps' shapes (kernels/common/tensor_map.h) and where the hardware's 128-byte swizzle puts a box's
// elements, against the wgmma tiles' layout (wgmma/layout.h) that the products read: a kernel that copies a
// chunk's panels by TMA (simple_gla's gradients kernel) relies on the two agreeing.
#include "kernels/common/tensor_map.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "kernels/common/wgmma/layout.h"

namespace flabench {
namespace {

TEST(TensorMap, TokenTileShapeIsTheTokenMajorTensorInnermostFirst) {
  const TokenTileMapShape s = token_tile_map_shape(2, 100, 3, 128, 64);
  EXPECT_EQ(s.dims, (std::array<std::uint64_t, 4>{128, 3, 100, 2}));
  // bytes from one head, token and sequence to the next
  EXPECT_EQ(s.strides, (std::array<std::uint64_t, 3>{256, 768, 76800}));
  EXPECT_EQ(s.box, (std::array<std::uint32_t, 4>{64, 1, 64, 1}));
  for (const std::uint64_t stride : s.strides)
    EXPECT_EQ(stride % 16, 0u) << "TMA's strides are 16-byte multiples";
}

TEST(TensorMap, RefusesWhatTmaCannotTake) {
  EXPECT_THROW(token_tile_map_shape(1, 64, 1, 96, 64), std::invalid_argument);   // D not a multiple of 64
  EXPECT_THROW(token_tile_map_shape(1, 64, 1, 64, 4), std::invalid_argument);    // too few rows
  EXPECT_THROW(token_tile_map_shape(1, 64, 1, 64, 260), std::invalid_argument);  // a box dim past 256
  EXPECT_THROW(token_tile_map_shape(1, 64, 1, 64, 60), std::invalid_argument);   // rows not a multiple of 8
  EXPECT_THROW(token_tile_map_shape(0, 64, 1, 64, 64), std::invalid_argument);
  EXPECT_NO_THROW(token_tile_map_shape(1, 1, 1, 64, 64));  // a sequence shorter than the box: zeros past it
  // a misaligned tensor is refused before the driver is asked (so on a machine without one too)
  alignas(16) static const unsigned char data[32] = {};
  EXPECT_THROW(encode_bf16_token_tile_map(data + 8, token_tile_map_shape(1, 1, 1, 64, 64)),
               std::runtime_error);
}

// Where TMA's 128-byte swizzle writes byte `offset` of a box laid out densely (PTX ISA, "Tensor Memory
// Accelerator", swizzling modes): within each 1024-byte span from a 1024-byte-aligned start, the 16-byte
// chunk's index (offset bits 4-6) XOR the 128-byte row's index within the span (bits 7-9).
unsigned tma_swizzle_128b(unsigned offset) {
  return offset ^ (((offset >> 7) & 7u) << 4);
}

TEST(TensorMap, SwizzledBoxesLandWhereTheWgmmaTilesHaveTheirElements) {
  for (const int columns : {64, 128}) {
    const wgmma::Tile tile{64};
    for (int panel = 0; panel < columns / kTileMapColumns; ++panel)
      for (int row = 0; row < tile.rows; ++row)
        for (int c = 0; c < kTileMapColumns; ++c) {
          // the box at column 64 panel goes to the panel's start; element (row, c) is its byte 128 row + 2 c
          const unsigned by_tma = panel * tile.panel_bytes() + tma_swizzle_128b(unsigned(row) * 128 + 2 * c);
          ASSERT_EQ(by_tma, tile.offset(row, panel * kTileMapColumns + c))
              << "row " << row << ", column " << panel * kTileMapColumns + c;
        }
  }
}

}  // namespace
}  // namespace flabench
