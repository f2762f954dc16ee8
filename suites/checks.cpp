#include "suites/checks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "suites/case_tensors.h"
#include "suites/inputs.h"
#include "suites/thresholds.h"

namespace flabench {
namespace {

Arrays64 zeros(const std::vector<TensorSpec>& specs, const Problem& problem) {
  Arrays64 arrays;
  for (const TensorSpec& spec : specs) arrays.set(spec.name, Array64(spec.shape(problem)));
  return arrays;
}

void compare_all(const Arrays64& reference, const Arrays64& result, double threshold, CheckRecord& check) {
  for (const auto& [name, expected] : reference) {
    check.tensors.push_back(compare_tensor(name, expected, result.at(name), threshold));
    check.passed = check.passed && check.tensors.back().passed;
  }
}

}  // namespace

Problem check_problem(const Problem& problem) {
  Problem shortened = problem;
  shortened.B = std::min<std::int64_t>(problem.B, 2);
  shortened.H = std::min<std::int64_t>(problem.H, 3);
  shortened.T = std::min<std::int64_t>(problem.T, 257);
  return shortened;
}

TensorCheckRecord compare_tensor(const std::string& name, const Array64& reference, const Array64& result,
                                 double threshold) {
  TensorCheckRecord record{name, 0, 0, threshold, 0, false};
  double diff_squares = 0, ref_squares = 0;
  for (std::size_t i = 0; i < reference.values.size(); ++i) {
    const double expected = reference.values[i], got = result.values[i];
    if (!std::isfinite(got) || !std::isfinite(expected)) {
      ++record.nonfinite;
      continue;
    }
    diff_squares += (expected - got) * (expected - got);
    ref_squares += expected * expected;
    record.max_abs = std::max(record.max_abs, std::abs(expected - got));
  }
  if (ref_squares > 0)
    record.rms_ratio = std::sqrt(diff_squares / ref_squares);
  else  // an all-zero reference: any difference is infinitely wrong (the largest double keeps JSON valid)
    record.rms_ratio = diff_squares > 0 ? std::numeric_limits<double>::max() : 0.0;
  record.passed = record.nonfinite == 0 && record.rms_ratio <= threshold;
  return record;
}

CheckRecord run_check(Device& device, const OpSpec& op, const Variant& variant, const Problem& p, Mode mode,
                      std::uint64_t seed) {
  const bool backward = mode == Mode::fwdbwd;
  const HostValuesMap inputs = make_input_values(op, p, seed);
  const Arrays64 reference_inputs = to_arrays64(inputs);
  Arrays64 reference_outputs = zeros(op.outputs, p);
  op.reference_forward(p, reference_inputs, reference_outputs);

  CaseTensors tensors(device, op, variant, p, mode);
  tensors.upload(inputs, tensors.inputs);
  tensors.poison(tensors.outputs);
  variant.forward({p, tensors.inputs, tensors.outputs, tensors.workspace, device.stream(), backward});

  CheckRecord check{true, shape_label(p), {}};
  compare_all(reference_outputs, tensors.download(tensors.outputs),
              check_threshold(p.dtype, TensorRole::forward, variant.support.tf32), check);
  if (!backward) return check;

  const HostValuesMap grad_outputs = make_grad_output_values(op, p, seed + 1);
  Arrays64 reference_grads = zeros(grad_specs(op), p);
  op.reference_backward(p, reference_inputs, to_arrays64(grad_outputs), reference_grads);
  tensors.upload(grad_outputs, tensors.grad_outputs);
  tensors.poison(tensors.grads);
  variant.backward(
      {p, tensors.inputs, tensors.grad_outputs, tensors.grads, tensors.workspace, device.stream()});
  compare_all(reference_grads, tensors.download(tensors.grads),
              check_threshold(p.dtype, TensorRole::gradient, variant.support.tf32), check);
  return check;
}

}  // namespace flabench
