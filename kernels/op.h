// What an op is, independent of any kernel: its tensors, how realistic inputs are made, its FLOPs and byte
// floor, and its fp64 reference. Every variant of the op is measured and checked against these.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/common/problem.h"
#include "kernels/common/tensor.h"

namespace flabench {

// HQ: query heads, G x H (grouped queries); M: slots.
enum class Extent { B, T, H, K, V, M, HQ };

struct TensorSpec {
  std::string name;
  std::vector<Extent> extents;
  bool in_case_dtype = true;   // false: always fp32 (recurrent states)
  bool differentiable = true;  // an input with a gradient named "d" + name

  Shape shape(const Problem& problem) const;
  DType dtype(const Problem& problem) const { return in_case_dtype ? problem.dtype : DType::fp32; }
};

// Fills one fp32 vector per input (in spec order) with realistic values; the suite rounds them to each
// tensor's dtype afterwards. `seed` makes the values reproducible.
using InputGenerator = std::function<void(const Problem&, std::uint64_t seed, HostValuesMap& inputs)>;

using ReferenceForward = std::function<void(const Problem&, const Arrays64& inputs, Arrays64& outputs)>;
using ReferenceBackward = std::function<void(const Problem&, const Arrays64& inputs,
                                             const Arrays64& grad_outputs, Arrays64& grads)>;

struct OpSpec {
  std::string name;
  std::string math;  // one line, for `fla-bench list`
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::string log_decay;  // the input that holds the log decay (gate), for the checks' decay extremes
  // The recurrent states: (the input a run starts from, the output it ends with) per state, for the checks'
  // state handoff (a prefix's final states are the suffix's initial states).
  std::vector<std::pair<std::string, std::string>> states;
  // The input the output reads the first state through, linearly (q, r): the checks' large-state case scales
  // it and the op's scale down as far as it scales that state up, so outputs stay in every dtype's range.
  std::string state_reader;
  // The inputs whose products write the states (k and v): the checks' large-state-gradient case scales them
  // down as far as it scales the final states' incoming gradients up, so dk and dv stay in range.
  std::vector<std::string> state_writers;
  // Slot counts (M) the op's cases take unless --axis M says otherwise; empty for ops without slots.
  std::vector<std::int64_t> slots;
  bool grouped_queries = false;  // takes --axis G (query heads per key/value head)
  // The most negative log decay the op's models produce: the checks' decay extremes drive the gate down to
  // it.
  double log_decay_floor = -40.0;
  std::function<double(const Problem&)> default_scale;
  InputGenerator make_inputs;
  // FLOPs of one forward call in the recurrent form (state update + output); the backward counts as twice
  // the forward. The same number for every variant, so FLOP rates compare across variants and GPUs.
  std::function<double(const Problem&)> forward_flops;
  ReferenceForward reference_forward;
  ReferenceBackward reference_backward;
  // The fp64 bytes the reference backward keeps per (batch, head): it bounds what the cpu backend runs.
  std::function<double(const Problem&)> reference_backward_bytes;
};

// Gradients flowing in: "d" + each output (do, dht). Gradients flowing out: "d" + each differentiable input.
std::vector<TensorSpec> grad_output_specs(const OpSpec& op);
std::vector<TensorSpec> grad_specs(const OpSpec& op);

double case_flops(const OpSpec& op, const Problem& problem, Mode mode);

// The fewest bytes a case must move: every input read once and every output written once; fwdbwd also
// re-reads the inputs and o, reads the incoming gradients and writes one gradient per input.
double floor_bytes(const OpSpec& op, const Problem& problem, Mode mode);

}  // namespace flabench
