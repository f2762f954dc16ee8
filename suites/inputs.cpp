#include "suites/inputs.h"

#include "kernels/common/parallel_for.h"
#include "kernels/common/random.h"

namespace flabench {
namespace {

void round_all(HostValuesMap& values) {
  for (auto& [name, tensor] : values) {
    if (tensor.dtype == DType::fp32) continue;
    std::vector<float>& v = tensor.values;
    const DType dtype = tensor.dtype;
    parallel_for_elements(static_cast<std::int64_t>(v.size()),
                          [&](std::int64_t i) { v[i] = round_to_dtype(dtype, v[i]); });
  }
}

}  // namespace

HostValuesMap shaped_values(const std::vector<TensorSpec>& specs, const Problem& problem) {
  HostValuesMap values;
  for (const TensorSpec& spec : specs) {
    HostValues tensor{spec.dtype(problem), spec.shape(problem), {}};
    tensor.values.assign(element_count(tensor.shape), 0.0f);
    values.set(spec.name, std::move(tensor));
  }
  return values;
}

HostValuesMap make_input_values(const OpSpec& op, const Problem& problem, std::uint64_t seed) {
  HostValuesMap values = shaped_values(op.inputs, problem);
  op.make_inputs(problem, seed, values);
  round_all(values);
  return values;
}

HostValuesMap make_grad_output_values(const OpSpec& op, const Problem& problem, std::uint64_t seed) {
  HostValuesMap values = shaped_values(grad_output_specs(op), problem);
  for (auto& [name, tensor] : values) fill_normal(tensor, seed, name);
  round_all(values);
  return values;
}

Arrays64 to_arrays64(const HostValuesMap& values) {
  Arrays64 arrays;
  for (const auto& [name, tensor] : values) {
    Array64 array(tensor.shape);
    std::copy(tensor.values.begin(), tensor.values.end(), array.values.begin());
    arrays.set(name, std::move(array));
  }
  return arrays;
}

}  // namespace flabench
