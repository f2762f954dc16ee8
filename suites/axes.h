// Axis overrides from the command line: `--axis NAME=VALUES`.
//
//   NAME   B, T, H, K, V (sizes), D (sets K and V), M (slots) and G (query heads per key head) of the ops
//          that have them, C (chunk size), dtype, mode
//   VALUES a comma list (T=1024,4096), an inclusive range start:stop[:step] (T=1024:4096:1024), and for sizes
//   a
//          power-of-two form: T[pow2]=10:14 means 2^10 .. 2^14 (exponents, as nvbench writes it)
//
// Sizes replace that dimension in every preset shape (duplicates are dropped); dtype, mode, C, M and G
// multiply (M and G only for ops with slots or grouped queries).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/problem.h"

namespace flabench {

struct AxisOverrides {
  std::map<std::string, std::vector<std::int64_t>> sizes;  // "B", "T", "H", "K", "V"
  std::vector<DType> dtypes;
  std::vector<Mode> modes;
  std::vector<int> chunk_sizes;
};

// Throws UsageError naming the offending argument: unknown axis, bad or non-positive value, axis given twice.
AxisOverrides parse_axes(const std::vector<std::string>& specs);

std::vector<std::string> known_axis_names();

}  // namespace flabench
