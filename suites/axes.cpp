#include "suites/axes.h"

#include <charconv>

#include "suites/usage_error.h"

namespace flabench {
namespace {

// Largest accepted size: far above any realistic head dim or sequence, low enough to keep products exact.
constexpr std::int64_t kMaxSize = std::int64_t(1) << 31;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  throw UsageError("--axis " + std::string(spec) + ": " + why);
}

std::int64_t parse_integer(std::string_view spec, std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    bad(spec, "'" + std::string(text) + "' is not an integer");
  return value;
}

// "a,b,c", "start:stop[:step]" (inclusive), with `pow2` the values are exponents of two.
std::vector<std::int64_t> parse_sizes(std::string_view spec, std::string_view values, bool pow2) {
  std::vector<std::int64_t> numbers;
  for (std::string_view item : split(values, ',')) {
    const std::vector<std::string_view> range = split(item, ':');
    if (range.size() == 1) {
      numbers.push_back(parse_integer(spec, item));
    } else if (range.size() <= 3) {
      const std::int64_t start = parse_integer(spec, range[0]), stop = parse_integer(spec, range[1]);
      const std::int64_t step = range.size() == 3 ? parse_integer(spec, range[2]) : 1;
      if (step <= 0) bad(spec, "a range step must be positive");
      if (stop < start) bad(spec, "range " + std::string(item) + " is empty");
      if ((stop - start) / step >= 4096)
        bad(spec, "range " + std::string(item) + " has more than 4096 values");
      for (std::int64_t value = start; value <= stop; value += step) numbers.push_back(value);
    } else {
      bad(spec, "'" + std::string(item) + "' is neither a value nor a range start:stop[:step]");
    }
  }
  for (std::int64_t& value : numbers) {
    if (pow2) {
      if (value < 0 || value > 31) bad(spec, "power-of-two exponents must lie in 0..31");
      value = std::int64_t(1) << value;
    }
    if (value < 1) bad(spec, "value " + std::to_string(value) + " is not allowed (sizes are >= 1)");
    if (value > kMaxSize) bad(spec, "value " + std::to_string(value) + " is too large");
  }
  return numbers;
}

}  // namespace

std::vector<std::string> known_axis_names() {
  return {"B", "T", "H", "K", "V", "D", "M", "G", "C", "dtype", "mode"};
}

AxisOverrides parse_axes(const std::vector<std::string>& specs) {
  AxisOverrides axes;
  std::vector<std::string> seen;
  for (const std::string& spec : specs) {
    const std::size_t equals = spec.find('=');
    if (equals == std::string::npos || equals + 1 == spec.size())
      bad(spec, "expected NAME=VALUES, e.g. T=1024,4096");
    std::string name = spec.substr(0, equals);
    const std::string_view values = std::string_view(spec).substr(equals + 1);
    bool pow2 = false;
    if (name.ends_with("[pow2]")) {
      pow2 = true;
      name.resize(name.size() - 6);
    }
    if (name == "chunk_size") name = "C";
    for (const std::string& earlier : seen)
      if (earlier == name || (name == "D" && (earlier == "K" || earlier == "V")) ||
          (earlier == "D" && (name == "K" || name == "V")))
        bad(spec, "axis " + name + " is already set by --axis " + earlier);
    seen.push_back(name);

    if (name == "B" || name == "T" || name == "H" || name == "K" || name == "V" || name == "M" ||
        name == "G") {
      axes.sizes[name] = parse_sizes(spec, values, pow2);
    } else if (name == "D") {
      axes.sizes["K"] = axes.sizes["V"] = parse_sizes(spec, values, pow2);
    } else if (name == "C") {
      for (std::int64_t size : parse_sizes(spec, values, pow2)) axes.chunk_sizes.push_back(int(size));
    } else if (pow2) {
      bad(spec, "[pow2] applies to size axes only");
    } else if (name == "dtype") {
      for (std::string_view item : split(values, ',')) {
        const auto dtype = parse_dtype(item);
        if (!dtype) bad(spec, "unknown dtype '" + std::string(item) + "' (allowed: fp32, fp16, bf16)");
        axes.dtypes.push_back(*dtype);
      }
    } else if (name == "mode") {
      for (std::string_view item : split(values, ',')) {
        if (item == "fwd")
          axes.modes.push_back(Mode::fwd);
        else if (item == "fwdbwd")
          axes.modes.push_back(Mode::fwdbwd);
        else
          bad(spec, "unknown mode '" + std::string(item) + "' (allowed: fwd, fwdbwd)");
      }
    } else {
      std::string known;
      for (const std::string& axis : known_axis_names()) known += (known.empty() ? "" : ", ") + axis;
      bad(spec, "unknown axis '" + name + "' (known: " + known + ")");
    }
  }
  return axes;
}

}  // namespace flabench
