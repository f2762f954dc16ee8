// Checks of a workspace layout shared by the variants' workspace tests: its regions, each an offset and the
// size its tensor needs (both in one unit, bytes or floats), must come in order without overlapping, each
// starting at a multiple of `alignment`.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace flabench::testing {

struct Region {
  std::size_t at, size;
};

// The end of the last region, after expecting every region to start aligned and after the one before it.
inline std::size_t expect_in_order(const std::vector<Region>& regions, std::size_t alignment) {
  std::size_t end = 0;
  for (const Region& r : regions) {
    EXPECT_GE(r.at, end) << "overlaps the region before it";
    EXPECT_EQ(r.at % alignment, 0u) << "not aligned to " << alignment;
    end = r.at + r.size;
  }
  return end;
}

}  // namespace flabench::testing
