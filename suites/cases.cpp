#include "suites/cases.h"

#include <algorithm>
#include <regex>

#include "suites/usage_error.h"

namespace flabench {

std::string case_name(const OpSpec& op, const Variant& variant, Mode mode, const Problem& p) {
  std::string name = op.name + "/" + variant.name + "/" + std::string(mode_name(mode)) + "/" +
                     std::string(dtype_name(p.dtype)) + "/" + shape_label(p);
  if (!variant.support.chunk_sizes.empty()) name += "/C" + std::to_string(p.chunk_size);
  return name;
}

std::vector<Shape5> apply_size_overrides(const std::vector<Shape5>& shapes, const AxisOverrides& axes) {
  std::vector<Shape5> result = shapes;
  auto override_dim = [&](const char* axis, std::int64_t Shape5::*member) {
    const auto found = axes.sizes.find(axis);
    if (found == axes.sizes.end()) return;
    std::vector<Shape5> expanded;
    for (const Shape5& shape : result)
      for (std::int64_t value : found->second) {
        Shape5 next = shape;
        next.*member = value;
        if (std::find(expanded.begin(), expanded.end(), next) == expanded.end()) expanded.push_back(next);
      }
    result = std::move(expanded);
  };
  override_dim("B", &Shape5::B);
  override_dim("T", &Shape5::T);
  override_dim("H", &Shape5::H);
  override_dim("K", &Shape5::K);
  override_dim("V", &Shape5::V);
  return result;
}

namespace {

// An op's values of the M or G axis: --axis NAME where the op has that dimension (its `defaults` are not
// empty), else the defaults, else `absent` alone.
std::vector<std::int64_t> op_axis(const std::vector<std::int64_t>& defaults, const AxisOverrides& axes,
                                  const std::string& name, std::int64_t absent) {
  if (defaults.empty()) return {absent};
  const auto given = axes.sizes.find(name);
  return given == axes.sizes.end() ? defaults : given->second;
}

}  // namespace

std::optional<std::regex> compile_filter(const std::string& filter) {
  if (filter.empty()) return std::nullopt;
  try {
    return std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UsageError("--filter: invalid regular expression '" + filter + "': " + e.what());
  }
}

std::vector<Case> expand_cases(const Registry& registry, const SuiteSpec& spec) {
  const std::optional<std::regex> filter = compile_filter(spec.filter);
  const std::vector<DType> dtypes =
      spec.axes.dtypes.empty() ? std::vector<DType>{DType::bf16, DType::fp16, DType::fp32} : spec.axes.dtypes;
  const std::vector<Mode> modes =
      spec.axes.modes.empty() ? std::vector<Mode>{Mode::fwd, Mode::fwdbwd} : spec.axes.modes;

  std::vector<Case> cases;
  for (const OpSpec* op : registry.ops()) {
    std::vector<const Variant*> variants;
    for (const Variant* variant : registry.variants_of(op->name))
      if (variant->backend == spec.backend) variants.push_back(variant);
    const std::vector<std::int64_t> slot_counts = op_axis(op->slots, spec.axes, "M", 0);
    const std::vector<std::int64_t> groups = op_axis(
        op->grouped_queries ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{}, spec.axes, "G", 1);
    for (const Shape5& shape : apply_size_overrides(spec.shapes, spec.axes))
      for (std::int64_t M : slot_counts)
        for (std::int64_t G : groups)
          for (DType dtype : dtypes)
            for (const Variant* variant : variants) {
              std::vector<int> chunk_sizes{0};
              if (!variant->support.chunk_sizes.empty())
                chunk_sizes = spec.axes.chunk_sizes.empty()
                                  ? std::vector<int>{variant->support.default_chunk_size}
                                  : spec.axes.chunk_sizes;
              for (int chunk_size : chunk_sizes)
                for (Mode mode : modes) {
                  Case c{op, variant, mode,
                         Problem{shape.B, shape.T, shape.H, shape.K, shape.V, dtype, chunk_size}};
                  c.problem.M = M, c.problem.G = G;
                  c.problem.scale = op->default_scale(c.problem);
                  c.name = case_name(*op, *variant, mode, c.problem);
                  if (filter && !std::regex_search(c.name, *filter)) continue;
                  c.skip_reason = why_unsupported(*variant, c.problem, mode, spec.limits);
                  cases.push_back(std::move(c));
                }
            }
  }
  return cases;
}

}  // namespace flabench
