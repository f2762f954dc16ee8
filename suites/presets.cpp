#include "suites/presets.h"

#include <algorithm>
#include <optional>
#include <regex>

#include "suites/usage_error.h"

namespace flabench {
namespace {

Shape5 square(std::int64_t B, std::int64_t T, std::int64_t H, std::int64_t D) {
  return {B, T, H, D, D};
}

std::optional<Shape5> parse_shape_name(const std::string& name) {
  static const std::regex pattern(R"(B(\d+)_T(\d+)_H(\d+)_(?:D(\d+)|K(\d+)_V(\d+)))");
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) return std::nullopt;
  auto number = [](const std::ssub_match& s) { return std::stoll(s.str()); };
  Shape5 shape{number(m[1]), number(m[2]), number(m[3]), 0, 0};
  if (m[4].matched)
    shape.K = shape.V = number(m[4]);
  else
    shape.K = number(m[5]), shape.V = number(m[6]);
  if (shape.B < 1 || shape.T < 1 || shape.H < 1 || shape.K < 1 || shape.V < 1) return std::nullopt;
  return shape;
}

}  // namespace

const std::vector<PresetGroup>& preset_groups() {
  static const std::vector<PresetGroup> groups{
      {"peer",
       "the shapes FLA's Triton kernels were timed at on the H100 (shared/anchors/peer-fla-h100.md)",
       {square(8, 1024, 8, 64), square(4, 4096, 16, 64), square(1, 24576, 16, 64), square(2, 16384, 16, 128),
        square(4, 4096, 16, 128)}},
      {"fla",
       "FLA's benchmarks/ops SHAPE_CONFIGS",
       {square(1, 8192, 96, 128), square(2, 16384, 16, 128), square(4, 2048, 16, 128),
        square(4, 4096, 64, 128), square(8, 2048, 32, 256), square(8, 1024, 8, 64)}},
      {"rwkv",
       "the RWKV CUDA kernels' benchmark shapes (BlinkDL, wind_rwkv): B8 T4096, H*D = 4096",
       {square(8, 4096, 64, 64), square(8, 4096, 32, 128)}},
      {"cpu",
       "small shapes for the fp64 cpu backend, K != V included",
       {square(1, 256, 2, 64), {2, 100, 3, 32, 16}}},
  };
  return groups;
}

std::string default_preset(bool gpu) {
  return gpu ? "peer" : "cpu";
}

std::vector<Shape5> resolve_presets(std::string_view names) {
  std::vector<Shape5> shapes;
  auto add = [&](const Shape5& shape) {
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
  };
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t end = std::min(names.find(',', start), names.size());
    const std::string name(names.substr(start, end - start));
    start = end + 1;
    const auto group = std::find_if(preset_groups().begin(), preset_groups().end(),
                                    [&](const PresetGroup& g) { return g.name == name; });
    if (group != preset_groups().end()) {
      for (const Shape5& shape : group->shapes) add(shape);
    } else if (auto shape = parse_shape_name(name)) {
      add(*shape);
    } else {
      std::string known;
      for (const PresetGroup& g : preset_groups()) known += (known.empty() ? "" : ", ") + g.name;
      throw UsageError("--preset: unknown preset '" + name + "' (groups: " + known +
                       "; or a shape such as B4_T2048_H16_D128 or B2_T200_H3_K32_V16)");
    }
  }
  return shapes;
}

std::string shape_name(const Shape5& s) {
  std::string name = "B" + std::to_string(s.B) + "_T" + std::to_string(s.T) + "_H" + std::to_string(s.H);
  return name +
         (s.K == s.V ? "_D" + std::to_string(s.K) : "_K" + std::to_string(s.K) + "_V" + std::to_string(s.V));
}

}  // namespace flabench
