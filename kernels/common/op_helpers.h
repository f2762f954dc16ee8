// The pieces every op definition shares: tensor shapes, input draws, and the recurrence-family OpSpec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/recurrence.h"
#include "kernels/op.h"
#include "kernels/registry.h"

namespace flabench::op_helpers {

inline const std::vector<Extent> kTokenKey{Extent::B, Extent::T, Extent::H, Extent::K};    // [B, T, H, K]
inline const std::vector<Extent> kTokenValue{Extent::B, Extent::T, Extent::H, Extent::V};  // [B, T, H, V]
inline const std::vector<Extent> kTokenHead{Extent::B, Extent::T, Extent::H};              // [B, T, H]
inline const std::vector<Extent> kHeadKey{Extent::H, Extent::K};                           // [H, K]
inline const std::vector<Extent> kState{Extent::B, Extent::H, Extent::K, Extent::V};       // [B, H, K, V]

inline TensorSpec state_input() {
  return {"h0", kState, /*in_case_dtype=*/false};
}

double inverse_sqrt_key_dim(const Problem& p);

// Every input ~ N(0, 1), each tensor from its own stream.
void fill_all_normal(HostValuesMap& inputs, std::uint64_t seed);

// As FLA's benchmarks draw gla, simple_gla and rwkv6 inputs: every input ~ N(0, 1), then the log-decay gate
// g = logsigmoid(N(0, 1)), in (-inf, 0). (FLA's gla benchmark also clamps g at -5, which almost never binds.)
InputGenerator normal_inputs_with_log_sigmoid_gate(std::string gate);

struct RecurrenceOpParts {
  std::string name;
  std::string math;
  std::vector<TensorSpec> inputs;  // the state input h0 last
  RecurrenceBinding binding;
  double flops_per_state_element;  // per token, in the recurrent form
  std::function<double(const Problem&)> default_scale;
  InputGenerator make_inputs;
  double log_decay_floor = -40.0;  // OpSpec::log_decay_floor
};

// An op of the recurrence family (kernels/common/recurrence.h): outputs o and ht, its fp64 reference from the
// binding, FLOPs = flops_per_state_element x B T H K V.
OpSpec recurrence_op(RecurrenceOpParts parts);

// Adds `op`, its cpu reference variant, and `variants`.
void register_op(Registry& registry, OpSpec op, std::vector<Variant> variants);

}  // namespace flabench::op_helpers
