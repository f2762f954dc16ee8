// Input values of a case: made on the host by the op's generator, rounded to each tensor's dtype, so the
// variant on the device and the fp64 reference see exactly the same numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op.h"

namespace flabench {

// Tensors shaped and typed by `specs`, values zero.
HostValuesMap shaped_values(const std::vector<TensorSpec>& specs, const Problem& problem);

HostValuesMap make_input_values(const OpSpec& op, const Problem& problem, std::uint64_t seed);

// do and dht ~ N(0, 1): an incoming gradient for every output, the final state included.
HostValuesMap make_grad_output_values(const OpSpec& op, const Problem& problem, std::uint64_t seed);

Arrays64 to_arrays64(const HostValuesMap& values);

}  // namespace flabench
