// Cases: op x variant x mode x dtype x shape (x chunk size), expanded from presets and axis overrides,
// selected by a regex over their names, e.g. rwkv7/chunk/fwdbwd/bf16/B4-T4096-H16-K64-V64/C64.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "suites/axes.h"
#include "suites/presets.h"

namespace flabench {

struct Case {
  const OpSpec* op = nullptr;
  const Variant* variant = nullptr;
  Mode mode = Mode::fwd;
  Problem problem;
  std::string name{};
  std::optional<std::string> skip_reason{};  // set when the variant cannot run this case
};

struct SuiteSpec {
  std::vector<Shape5> shapes;  // from the presets
  AxisOverrides axes;
  std::string filter;  // ECMAScript regex searched in the case name; empty selects all
  Backend backend = Backend::cuda;
  DeviceLimits limits;
};

std::string case_name(const OpSpec& op, const Variant& variant, Mode mode, const Problem& problem);

// The shapes after the size overrides: each given size replaces that dimension of every shape.
std::vector<Shape5> apply_size_overrides(const std::vector<Shape5>& shapes, const AxisOverrides& axes);

// The --filter regex (ECMAScript, searched in case names); nullopt for an empty one. Throws UsageError for a
// bad one.
std::optional<std::regex> compile_filter(const std::string& filter);

// Every case of the spec's backend that the filter selects, in run order (cases that share inputs are
// adjacent). Throws UsageError for a bad regex.
std::vector<Case> expand_cases(const Registry& registry, const SuiteSpec& spec);

}  // namespace flabench
