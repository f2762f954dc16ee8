#include "kernels/common/op_helpers.h"

#include <cmath>

#include "kernels/common/parallel_for.h"
#include "kernels/common/random.h"
#include "kernels/common/recurrence_reference.h"
#include "kernels/common/reference_variant.h"

namespace flabench::op_helpers {

double inverse_sqrt_key_dim(const Problem& p) {
  return 1.0 / std::sqrt(static_cast<double>(p.K));
}

void fill_all_normal(HostValuesMap& inputs, std::uint64_t seed) {
  for (auto& [name, values] : inputs) fill_normal(values, seed, name);
}

InputGenerator normal_inputs_with_log_sigmoid_gate(std::string gate) {
  return [gate](const Problem&, std::uint64_t seed, HostValuesMap& inputs) {
    fill_all_normal(inputs, seed);
    std::vector<float>& g = inputs.at(gate).values;
    parallel_for_elements(static_cast<std::int64_t>(g.size()),
                          [&](std::int64_t i) { g[i] = static_cast<float>(log_sigmoid(g[i])); });
  };
}

OpSpec recurrence_op(RecurrenceOpParts parts) {
  OpSpec op;
  op.name = std::move(parts.name);
  op.math = std::move(parts.math);
  op.inputs = std::move(parts.inputs);
  op.outputs = {{"o", kTokenValue}, {"ht", kState, /*in_case_dtype=*/false}};
  op.log_decay = parts.binding.g;
  op.log_decay_floor = parts.log_decay_floor;
  op.states = {{parts.binding.h0, parts.binding.ht}};
  op.state_reader = parts.binding.q;
  op.state_writers = {parts.binding.k, parts.binding.v};
  op.default_scale = std::move(parts.default_scale);
  op.make_inputs = std::move(parts.make_inputs);
  op.forward_flops = [per_element = parts.flops_per_state_element](const Problem& p) {
    return per_element * static_cast<double>(p.B * p.T * p.H) * static_cast<double>(p.K * p.V);
  };
  op.reference_forward = make_reference_forward(parts.binding);
  op.reference_backward = make_reference_backward(parts.binding);
  op.reference_backward_bytes = recurrence_reference_backward_bytes;
  return op;
}

void register_op(Registry& registry, OpSpec op, std::vector<Variant> variants) {
  const OpSpec& added = registry.add_op(std::move(op));
  registry.add_variant(make_reference_variant(added));
  for (Variant& variant : variants) registry.add_variant(std::move(variant));
}

}  // namespace flabench::op_helpers
