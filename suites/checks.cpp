#include "suites/checks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/common/format.h"
#include "suites/case_tensors.h"
#include "suites/inputs.h"

namespace flabench {
namespace {

Arrays64 zeros(const std::vector<TensorSpec>& specs, const Problem& problem) {
  Arrays64 arrays;
  for (const TensorSpec& spec : specs) arrays.set(spec.name, Array64(spec.shape(problem)));
  return arrays;
}

// `name` turns a spec's name into the one reported (the inference forward's outputs get their own);
// `state_threshold` is for the specs that are fp32 whatever the case's dtype: a final state, the initial
// state's gradient.
template <class Name>
void compare_all(const std::vector<TensorSpec>& specs, const Problem& problem, const Arrays64& expected,
                 const Arrays64& got, double threshold, double state_threshold, CheckRecord& check,
                 const Name& name) {
  for (const TensorSpec& spec : specs) {
    if (!expected.contains(spec.name)) continue;
    check.tensors.push_back(compare_tensor(name(spec.name), expected.at(spec.name), got.at(spec.name),
                                           spec.dtype(problem),
                                           spec.in_case_dtype ? threshold : state_threshold));
    check.passed = check.passed && check.tensors.back().passed;
  }
}
std::string same_name(const std::string& name) {
  return name;
}

}  // namespace

std::string inference_name(const std::string& output) {
  return output + " (inference)";
}

Problem check_problem(const Problem& problem) {
  Problem shortened = problem;
  shortened.B = std::min<std::int64_t>(problem.B, 2);
  shortened.H = std::min<std::int64_t>(problem.H, 3);
  shortened.T = std::min<std::int64_t>(problem.T, 257);
  return shortened;
}

TensorCheckRecord compare_tensor(const std::string& name, const Array64& reference, const Array64& result,
                                 DType stored, double threshold) {
  TensorCheckRecord record{name, 0, 0, threshold, 0, false};
  double diff_squares = 0, ref_squares = 0, storage_squares = 0;
  for (std::size_t i = 0; i < reference.values.size(); ++i) {
    const double expected = reference.values[i], got = result.values[i];
    if (!std::isfinite(got) || !std::isfinite(expected)) {
      ++record.nonfinite;
      continue;
    }
    diff_squares += (expected - got) * (expected - got);
    ref_squares += expected * expected;
    const double representable = round_to_dtype(stored, static_cast<float>(expected));
    if (std::isfinite(representable))
      storage_squares += (expected - representable) * (expected - representable);
    record.max_abs = std::max(record.max_abs, std::abs(expected - got));
  }
  if (ref_squares > 0) {
    record.rms_ratio = std::sqrt(diff_squares / ref_squares);
    // Where the dtype itself cannot hold the reference (values below fp16's range), even a perfect kernel
    // shows the rounding error; the bar is then twice that, never lower than the dtype's threshold.
    const double storage_floor = std::sqrt(storage_squares / ref_squares);
    if (2 * storage_floor > threshold) {
      record.threshold = 2 * storage_floor;
      record.detail = format("threshold raised from %.1e to twice the error of the reference rounded to %s",
                             threshold, std::string(dtype_name(stored)).c_str());
    }
  } else {  // an all-zero reference: any difference is infinitely wrong (the largest double keeps JSON valid)
    record.rms_ratio = diff_squares > 0 ? std::numeric_limits<double>::max() : 0.0;
  }
  record.passed = record.nonfinite == 0 && record.rms_ratio <= record.threshold;
  return record;
}

CheckInputs make_check_inputs(const OpSpec& op, const Problem& problem, Mode mode, std::uint64_t seed) {
  CheckInputs inputs{make_input_values(op, problem, seed), std::nullopt};
  if (mode == Mode::fwdbwd) inputs.grad_outputs = make_grad_output_values(op, problem, seed + 1);
  return inputs;
}

CallResults reference_results(const OpSpec& op, const Problem& p, const CheckInputs& inputs) {
  const Arrays64 in = to_arrays64(inputs.inputs);
  CallResults results{zeros(op.outputs, p), {}, {}};
  op.reference_forward(p, in, results.outputs);
  if (inputs.grad_outputs) {
    results.grads = zeros(grad_specs(op), p);
    op.reference_backward(p, in, to_arrays64(*inputs.grad_outputs), results.grads);
  }
  return results;
}

CallResults variant_results(Device& device, const OpSpec& op, const Variant& variant, const Problem& p,
                            const CheckInputs& inputs, unsigned char poison, Arrays64* inputs_after) {
  const bool backward = inputs.grad_outputs.has_value();
  CaseTensors tensors(device, op, variant, p, backward ? Mode::fwdbwd : Mode::fwd);
  tensors.upload(inputs.inputs, tensors.inputs);
  CallResults results;
  if (backward) {
    tensors.fill(tensors.outputs, poison);
    variant.forward({p, tensors.inputs, tensors.outputs, tensors.workspace, device.stream(), false});
    results.inference = tensors.download(tensors.outputs);
  }
  tensors.fill(tensors.outputs, poison);
  variant.forward({p, tensors.inputs, tensors.outputs, tensors.workspace, device.stream(), backward});
  results.outputs = tensors.download(tensors.outputs);
  if (backward) {
    tensors.upload(*inputs.grad_outputs, tensors.grad_outputs);
    tensors.fill(tensors.grads, poison);
    variant.backward(
        {p, tensors.inputs, tensors.grad_outputs, tensors.grads, tensors.workspace, device.stream()});
    results.grads = tensors.download(tensors.grads);
  }
  if (inputs_after) {
    *inputs_after = tensors.download(tensors.inputs);
    if (backward)
      for (auto& [name, values] : tensors.download(tensors.grad_outputs))
        inputs_after->set(name, std::move(values));
  }
  return results;
}

void compare_results(const OpSpec& op, const Problem& problem, const CallResults& expected,
                     const CallResults& got, const Thresholds& thresholds, CheckRecord& check) {
  compare_all(op.outputs, problem, expected.outputs, got.outputs, thresholds.forward, thresholds.state, check,
              same_name);
  if (got.inference.size() != 0)
    compare_all(op.outputs, problem, expected.outputs, got.inference, thresholds.forward, thresholds.state,
                check, inference_name);
  compare_all(grad_specs(op), problem, expected.grads, got.grads, thresholds.gradient, thresholds.state,
              check, same_name);
}

CheckRecord run_check(Device& device, const OpSpec& op, const Variant& variant, const Problem& p, Mode mode,
                      std::uint64_t seed) {
  const CheckInputs inputs = make_check_inputs(op, p, mode, seed);
  CheckRecord check{true, shape_label(p), {}};
  compare_results(op, p, reference_results(op, p, inputs), variant_results(device, op, variant, p, inputs),
                  reference_thresholds(p.dtype, variant.support.tf32), check);
  return check;
}

}  // namespace flabench
