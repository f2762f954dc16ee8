// The correctness spot check: a variant against the op's fp64 reference on the same inputs, forward and (for
// fwdbwd) backward, every output and gradient compared by RMS(ref - x) / RMS(ref) with per-dtype thresholds.
#pragma once

#include <cstdint>

#include "kernels/op.h"
#include "kernels/variant.h"
#include "results/record.h"
#include "suites/device.h"

namespace flabench {

// The case's head dims, dtype, chunk size and scale with B <= 2, H <= 3 and T <= 257, so the fp64 reference
// stays fast; T = 257 leaves a one-token tail after every power-of-two chunk size.
Problem check_problem(const Problem& problem);

// One tensor: the RMS ratio, max |ref - x| and NaN/Inf count (in x or, as a suite bug, in ref).
TensorCheckRecord compare_tensor(const std::string& name, const Array64& reference, const Array64& result,
                                 double threshold);

// Runs `variant` on `problem` (already shortened by the caller if wanted) and compares it with the reference.
CheckRecord run_check(Device& device, const OpSpec& op, const Variant& variant, const Problem& problem,
                      Mode mode, std::uint64_t seed);

}  // namespace flabench
