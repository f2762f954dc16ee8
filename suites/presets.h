// Named shapes and groups of them. A shape is named like FLA's presets: B4_T2048_H16_D128 (K = V = D) or
// B2_T200_H3_K32_V16; any name of that form is accepted, not only the listed ones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flabench {

struct Shape5 {
  std::int64_t B, T, H, K, V;
  bool operator==(const Shape5&) const = default;
};

struct PresetGroup {
  std::string name;
  std::string description;
  std::vector<Shape5> shapes;
};

const std::vector<PresetGroup>& preset_groups();

// The default group: "peer" on a GPU (the shapes FLA was timed at), "cpu" on the cpu backend.
std::string default_preset(bool gpu);

// Expands a comma list of group names and shape names; throws UsageError for an unknown name.
std::vector<Shape5> resolve_presets(std::string_view names);

std::string shape_name(const Shape5& shape);  // B4_T2048_H16_D128

}  // namespace flabench
