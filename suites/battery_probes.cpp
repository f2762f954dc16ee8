#include "suites/battery_probes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "kernels/common/format.h"
#include "kernels/common/random.h"
#include "suites/inputs.h"

namespace flabench {
namespace {

void add_tensor(CheckRecord& check, TensorCheckRecord tensor) {
  check.passed = check.passed && tensor.passed;
  check.tensors.push_back(std::move(tensor));
}

// Bitwise equality of two decoded elements (0.0 and -0.0 differ; any NaN equals any NaN).
bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

std::string count_text(std::int64_t count, std::size_t total, const char* what) {
  return format("%lld of %zu elements %s", static_cast<long long>(count), total, what);
}

// Where the T extent sits in a tensor: `outer` rows before it, `inner` elements after it; nullopt without
// one.
struct TimeLayout {
  std::int64_t outer = 1, inner = 1;
  std::size_t axis = 0;
};

std::optional<TimeLayout> time_layout(const TensorSpec& spec, const Shape& shape) {
  const auto found = std::find(spec.extents.begin(), spec.extents.end(), Extent::T);
  if (found == spec.extents.end()) return std::nullopt;
  TimeLayout layout;
  layout.axis = static_cast<std::size_t>(found - spec.extents.begin());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i < layout.axis) layout.outer *= shape[i];
    if (i > layout.axis) layout.inner *= shape[i];
  }
  return layout;
}

// Copies tokens [begin, end) of `from` (T tokens) to tokens [at, at + end - begin) of `to` (T_to tokens).
template <class Element>
void copy_tokens(const std::vector<Element>& from, std::int64_t T, std::int64_t begin, std::int64_t end,
                 std::vector<Element>& to, std::int64_t T_to, std::int64_t at, const TimeLayout& layout) {
  for (std::int64_t row = 0; row < layout.outer; ++row)
    std::copy(from.begin() + (row * T + begin) * layout.inner, from.begin() + (row * T + end) * layout.inner,
              to.begin() + (row * T_to + at) * layout.inner);
}

// The inputs of tokens [begin, end) of a fwd case.
CheckInputs slice_inputs(const OpSpec& op, const CheckInputs& full, std::int64_t T, std::int64_t begin,
                         std::int64_t end) {
  CheckInputs part;
  for (const TensorSpec& spec : op.inputs) {
    const HostValues& values = full.inputs.at(spec.name);
    const auto layout = time_layout(spec, values.shape);
    if (!layout) {
      part.inputs.set(spec.name, values);
      continue;
    }
    HostValues slice{values.dtype, values.shape, {}};
    slice.shape[layout->axis] = end - begin;
    slice.values.resize(element_count(slice.shape));
    copy_tokens(values.values, T, begin, end, slice.values, end - begin, 0, *layout);
    part.inputs.set(spec.name, std::move(slice));
  }
  return part;
}

// Prefix with one variant, suffix with another from the prefix's final state, against one reference pass.
CheckRecord handoff(Device& device, const BatteryCase& c, const CheckInputs& inputs,
                    const ReferenceSource& reference) {
  const OpSpec& op = *c.op;
  const std::int64_t T = c.problem.T;
  Problem prefix = with_chunk_of(c.problem, *c.variant), suffix = with_chunk_of(c.problem, *c.second);
  prefix.T = c.split;
  suffix.T = T - c.split;
  const CallResults first =
      variant_results(device, op, *c.variant, prefix, slice_inputs(op, inputs, T, 0, c.split));
  CheckInputs rest = slice_inputs(op, inputs, T, c.split, T);
  for (const auto& [initial, final] : op.states) {
    HostValues& h0 = rest.inputs.at(initial);
    const Array64& ht = first.outputs.at(final);
    std::transform(ht.values.begin(), ht.values.end(), h0.values.begin(),
                   [&](double v) { return round_to_dtype(h0.dtype, static_cast<float>(v)); });
  }
  const CallResults second = variant_results(device, op, *c.second, suffix, rest);

  CallResults joined;
  for (const TensorSpec& spec : op.outputs) {
    const Array64& tail = second.outputs.at(spec.name);
    const auto layout = time_layout(spec, tail.shape);
    if (!layout) {
      joined.outputs.set(spec.name, tail);
      continue;
    }
    Array64 whole(spec.shape(c.problem));
    copy_tokens(first.outputs.at(spec.name).values, prefix.T, 0, prefix.T, whole.values, T, 0, *layout);
    copy_tokens(tail.values, suffix.T, 0, suffix.T, whole.values, T, prefix.T, *layout);
    joined.outputs.set(spec.name, std::move(whole));
  }
  CheckRecord check{true, shape_label(c.problem), {}};
  compare_results(op, c.problem, reference(), joined,
                  reference_thresholds(c.problem.dtype, c.variant->support.tf32 || c.second->support.tf32),
                  check);
  return check;
}

CheckRecord cross(Device& device, const BatteryCase& c, const CheckInputs& inputs) {
  const CallResults first =
      variant_results(device, *c.op, *c.variant, with_chunk_of(c.problem, *c.variant), inputs);
  const CallResults second =
      variant_results(device, *c.op, *c.second, with_chunk_of(c.problem, *c.second), inputs);
  CheckRecord check{true, shape_label(c.problem), {}};
  compare_results(*c.op, c.problem, first, second,
                  cross_thresholds(c.problem.dtype, c.variant->support.tf32, c.second->support.tf32), check);
  return check;
}

// Every input and incoming gradient bitwise as it was before forward and backward.
CheckRecord inputs_unchanged(Device& device, const BatteryCase& c, const CheckInputs& inputs) {
  Arrays64 after;
  variant_results(device, *c.op, *c.variant, c.problem, inputs, 0xFF, &after);
  Arrays64 before = to_arrays64(inputs.inputs);
  if (inputs.grad_outputs)
    for (auto& [name, values] : to_arrays64(*inputs.grad_outputs)) before.set(name, std::move(values));
  CheckRecord check{true, shape_label(c.problem), {}};
  for (const auto& [name, original] : before) {
    const Array64& now = after.at(name);
    TensorCheckRecord t{name};
    std::int64_t changed = 0;
    for (std::size_t i = 0; i < original.values.size(); ++i) {
      if (same_bits(original.values[i], now.values[i])) continue;
      ++changed;
      if (std::isfinite(now.values[i]))
        t.max_abs = std::max(t.max_abs, std::abs(now.values[i] - original.values[i]));
      else
        ++t.nonfinite;
    }
    t.passed = changed == 0;
    t.detail = count_text(changed, original.values.size(), "changed");
    add_tensor(check, std::move(t));
  }
  return check;
}

// The value every element of `dtype` holds after its bytes are all set to `byte`.
double filled_value(DType dtype, unsigned char byte) {
  unsigned char storage[sizeof(float)];
  std::memset(storage, byte, sizeof storage);
  double value = 0;
  decode_values(dtype, storage, std::span<double>(&value, 1));
  return value;
}

// Every output and gradient element written: run once over NaN bytes (0xFF) and once over 0x55 bytes; an
// element that is NaN in the first and still the 0x55 value in the second was never written.
CheckRecord writes_all(Device& device, const BatteryCase& c, const CheckInputs& inputs) {
  constexpr unsigned char kPattern = 0x55;
  const CallResults over_nan = variant_results(device, *c.op, *c.variant, c.problem, inputs, 0xFF);
  const CallResults over_pattern = variant_results(device, *c.op, *c.variant, c.problem, inputs, kPattern);
  // every output and gradient, and (with gradients) the inference forward's outputs
  struct Written {
    std::string name;
    const Array64 &over_nan, &over_pattern;
    DType dtype;
  };
  std::vector<Written> written;
  for (const TensorSpec& spec : c.op->outputs) {
    const DType dtype = spec.dtype(c.problem);
    written.push_back({spec.name, over_nan.outputs.at(spec.name), over_pattern.outputs.at(spec.name), dtype});
    if (inputs.grad_outputs)
      written.push_back({inference_name(spec.name), over_nan.inference.at(spec.name),
                         over_pattern.inference.at(spec.name), dtype});
  }
  if (inputs.grad_outputs)
    for (const TensorSpec& spec : grad_specs(*c.op))
      written.push_back(
          {spec.name, over_nan.grads.at(spec.name), over_pattern.grads.at(spec.name), spec.dtype(c.problem)});
  CheckRecord check{true, shape_label(c.problem), {}};
  for (const Written& w : written) {
    const Array64 &a = w.over_nan, &b = w.over_pattern;
    const double pattern = filled_value(w.dtype, kPattern);
    TensorCheckRecord t{w.name};
    std::int64_t unwritten = 0;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      if (std::isnan(a.values[i]) && same_bits(b.values[i], pattern)) ++unwritten;
      if (!std::isfinite(a.values[i])) ++t.nonfinite;
    }
    t.passed = unwritten == 0;
    t.detail = count_text(unwritten, a.values.size(), "not written");
    add_tensor(check, std::move(t));
  }
  return check;
}

// Two calls on the same inputs, bitwise equal unless the variant declares it is not deterministic; the
// spread (max |first - second|) is recorded either way.
CheckRecord deterministic(Device& device, const BatteryCase& c, const CheckInputs& inputs) {
  const CallResults first = variant_results(device, *c.op, *c.variant, c.problem, inputs);
  const CallResults second = variant_results(device, *c.op, *c.variant, c.problem, inputs);
  const bool declared = c.variant->support.deterministic;
  CheckRecord check{true, shape_label(c.problem), {}};
  const std::pair<const Arrays64*, const Arrays64*> pairs[] = {{&first.outputs, &second.outputs},
                                                               {&first.inference, &second.inference},
                                                               {&first.grads, &second.grads}};
  for (const auto& [results, others] : pairs) {
    for (const auto& [name, a] : *results) {
      const Array64& b = others->at(name);
      TensorCheckRecord t{results == &first.inference ? inference_name(name) : name};
      std::int64_t differ = 0;
      for (std::size_t i = 0; i < a.values.size(); ++i) {
        if (same_bits(a.values[i], b.values[i])) continue;
        ++differ;
        if (std::isfinite(a.values[i]) && std::isfinite(b.values[i]))
          t.max_abs = std::max(t.max_abs, std::abs(a.values[i] - b.values[i]));
        else
          ++t.nonfinite;
      }
      t.passed = differ == 0 || !declared;
      t.detail =
          count_text(differ, a.values.size(), "differ") + (declared ? "" : " (declared nondeterministic)");
      add_tensor(check, std::move(t));
    }
  }
  return check;
}

void scale_values(HostValues& tensor, float factor) {
  for (float& x : tensor.values) x = round_to_dtype(tensor.dtype, x * factor);
}

}  // namespace

CheckInputs battery_inputs(const BatteryCase& c, std::uint64_t seed) {
  CheckInputs inputs = make_check_inputs(*c.op, c.problem, c.mode, seed);
  if (c.magnitude == Magnitude::large_state || c.magnitude == Magnitude::large_state_small_loss) {
    scale_values(inputs.inputs.at(c.op->states.front().first), kLargeState);
    scale_values(inputs.inputs.at(c.op->state_reader), kLargeStateReader);
    if (inputs.grad_outputs && c.magnitude == Magnitude::large_state_small_loss)
      for (auto& [name, gradient] : *inputs.grad_outputs) scale_values(gradient, kLargeStateReader);
    else if (inputs.grad_outputs)
      for (const auto& [initial, final] : c.op->states)
        scale_values(inputs.grad_outputs->at("d" + final), kLargeStateReader);
  }
  if (c.magnitude == Magnitude::large_state_gradient) {
    for (const auto& [initial, final] : c.op->states) {
      scale_values(inputs.inputs.at(initial), kSmallFactor);
      if (inputs.grad_outputs) scale_values(inputs.grad_outputs->at("d" + final), kLargeStateGradient);
    }
    for (const std::string& writer : c.op->state_writers)
      scale_values(inputs.inputs.at(writer), kSmallFactor);
  }
  if (c.magnitude == Magnitude::small_loss && inputs.grad_outputs)
    for (auto& [name, gradient] : *inputs.grad_outputs) scale_values(gradient, kSmallFactor);
  if (c.decay == DecayScenario::typical) return inputs;
  HostValues& g = inputs.inputs.at(c.op->log_decay);
  const RandomStream pick(seed, "decay_scenario");
  const double floor = c.op->log_decay_floor;
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    double value = g.values[i];
    if (c.decay == DecayScenario::near_zero) value = kNearZeroLogDecay;
    if (c.decay == DecayScenario::floor) value = floor;
    if (c.decay == DecayScenario::beyond) value = kBeyondLogDecay;
    if (c.decay == DecayScenario::mixed) {
      const double u = pick.uniform(i);
      value = u < 1.0 / 3 ? kNearZeroLogDecay : u < 2.0 / 3 ? value : floor;
    }
    g.values[i] = round_to_dtype(g.dtype, static_cast<float>(value));
  }
  return inputs;
}

CheckRecord run_probe(Device& device, const BatteryCase& c, const CheckInputs& inputs,
                      const ReferenceSource& reference) {
  switch (c.probe) {
    case Probe::reference: {
      CheckRecord check{true, shape_label(c.problem), {}};
      compare_results(*c.op, c.problem, reference(),
                      variant_results(device, *c.op, *c.variant, c.problem, inputs),
                      reference_thresholds(c.problem.dtype, c.variant->support.tf32), check);
      return check;
    }
    case Probe::handoff:
      return handoff(device, c, inputs, reference);
    case Probe::cross:
      return cross(device, c, inputs);
    case Probe::inputs_unchanged:
      return inputs_unchanged(device, c, inputs);
    case Probe::writes_all:
      return writes_all(device, c, inputs);
    case Probe::deterministic:
      return deterministic(device, c, inputs);
  }
  throw std::logic_error("unknown battery probe");
}

}  // namespace flabench
