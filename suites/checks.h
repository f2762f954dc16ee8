// Correctness checks: a variant against the op's fp64 reference on the same inputs, forward and (for fwdbwd)
// backward, every output and gradient compared by RMS(ref - x) / RMS(ref) with per-dtype thresholds. The
// pieces (inputs, reference results, variant results, comparison) are what the spot check of every benchmark
// case and the battery of `fla-bench check` (suites/battery.h) are built from.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/op.h"
#include "kernels/variant.h"
#include "results/record.h"
#include "suites/device.h"
#include "suites/thresholds.h"

namespace flabench {

// The case's head dims, dtype, chunk size and scale with B <= 2, H <= 3 and T <= 257, so the fp64 reference
// stays fast; T = 257 leaves a one-token tail after every power-of-two chunk size.
Problem check_problem(const Problem& problem);

// One tensor: the RMS ratio, max |ref - x| and NaN/Inf count (in x or, as a suite bug, in ref). `stored` is
// the dtype `result` was stored in: where rounding the reference to it alone errs by more than half the
// threshold (values it cannot hold), the threshold becomes twice that error, and the record's detail says so.
TensorCheckRecord compare_tensor(const std::string& name, const Array64& reference, const Array64& result,
                                 DType stored, double threshold);

// The inputs of a check; incoming gradients (do, dht) only for fwdbwd.
struct CheckInputs {
  HostValuesMap inputs;
  std::optional<HostValuesMap> grad_outputs;
};
CheckInputs make_check_inputs(const OpSpec& op, const Problem& problem, Mode mode, std::uint64_t seed);

// What one forward (and backward) produced, decoded to fp64.
struct CallResults {
  Arrays64 outputs;
  Arrays64 grads;  // empty without incoming gradients
  // With incoming gradients, also the outputs of a forward that saved nothing for a backward, run first on
  // the same inputs: a variant may take other kernels when it saves nothing (simple_gla's chunk does), and
  // every check of the forward then covers both.
  Arrays64 inference;
};

// The name under which a check reports the inference forward's `output` (CallResults::inference).
std::string inference_name(const std::string& output);

CallResults reference_results(const OpSpec& op, const Problem& problem, const CheckInputs& inputs);

// Runs `variant` once (with incoming gradients: an inference forward, then a forward that saves and the
// backward): every output and gradient is first filled with the byte `poison`. `inputs_after`, when
// given, receives the inputs and incoming gradients as they are after the calls.
CallResults variant_results(Device& device, const OpSpec& op, const Variant& variant, const Problem& problem,
                            const CheckInputs& inputs, unsigned char poison = 0xFF,
                            Arrays64* inputs_after = nullptr);

// Appends the comparison of every tensor of `expected` with `got` (results of `op` on `problem`) to `check`:
// outputs at the forward threshold, gradients at the gradient threshold.
void compare_results(const OpSpec& op, const Problem& problem, const CallResults& expected,
                     const CallResults& got, const Thresholds& thresholds, CheckRecord& check);

// The spot check: `variant` on `problem` (already shortened by the caller if wanted) against the reference.
CheckRecord run_check(Device& device, const OpSpec& op, const Variant& variant, const Problem& problem,
                      Mode mode, std::uint64_t seed);

}  // namespace flabench
