// Tensor maps for Hopper's tensor memory accelerator (TMA, sm_90): one instruction copies a box of a tensor
// in global memory into shared memory (tma.cuh), in the 128-byte swizzle the wgmma tiles use and with every
// element outside the tensor a zero. A map describes the tensor and the box; the driver encodes it on the
// host, reached through the runtime's entry point so that the suite does not link libcuda.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only)

#include <array>
#include <cstdint>

namespace flabench {

// A token-major [B, T, H, D] 16-bit tensor as a map sees it: dims innermost first (D, H, T, B), the byte
// strides of dims 1-3, and a box of `rows` tokens by 64 channels of one head, one panel of wgmma/layout.h's
// tiles (128-byte rows). The box at (64 p, h, t0, b) is panel p of the tile of tokens t0 .. t0 + rows - 1 of
// head h in sequence b; tokens past T come as zeros.
struct TokenTileMapShape {
  std::array<std::uint64_t, 4> dims;
  std::array<std::uint64_t, 3> strides;
  std::array<std::uint32_t, 4> box;
};

inline constexpr int kTileMapColumns = 64;  // a box's channels: 128 bytes, the swizzle's span

// Throws std::invalid_argument where TMA cannot take the tensor or box (D not a multiple of 64, rows not in
// 8 .. 256 or not a multiple of 8, a dim of zero or past 2^32).
TokenTileMapShape token_tile_map_shape(std::int64_t B, std::int64_t T, std::int64_t H, std::int64_t D,
                                       int rows);

// The driver's map of bf16 `data` (16-byte aligned) as `shape` says, 128-byte swizzle, zeros outside. Throws
// std::runtime_error naming the failure (no driver entry point, or the driver refusing the map).
CUtensorMap encode_bf16_token_tile_map(const void* data, const TokenTileMapShape& shape);

}  // namespace flabench
