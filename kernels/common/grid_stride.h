// Blocks for a grid-stride loop over `total` elements: enough to cover them, at most 8192 (the loop takes the
// rest), at least one. Host-safe.
#pragma once

#include <algorithm>
#include <cstdint>

namespace flabench {

constexpr int kGridStrideThreads = 256;

inline unsigned grid_stride_blocks(std::int64_t total) {
  return unsigned(std::clamp<std::int64_t>((total + kGridStrideThreads - 1) / kGridStrideThreads, 1, 8192));
}

}  // namespace flabench
