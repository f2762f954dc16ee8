#include "kernels/common/reference_variant.h"

#include "kernels/common/format.h"

namespace flabench {
namespace {

// Backprop through time keeps every state of a head in fp64; past this it would exhaust a workstation.
constexpr double kMaxBackwardBytesPerHead = 1024.0 * 1024 * 1024;

Arrays64 decode_all(const TensorMap& tensors) {
  Arrays64 arrays;
  for (const auto& [name, tensor] : tensors) arrays.set(name, decode_tensor(tensor));
  return arrays;
}

Arrays64 zeros_like(const TensorMap& tensors) {
  Arrays64 arrays;
  for (const auto& [name, tensor] : tensors) arrays.set(name, Array64(tensor.shape));
  return arrays;
}

void encode_all(const Arrays64& arrays, TensorMap& tensors) {
  for (auto& [name, tensor] : tensors) encode_tensor(arrays.at(name), tensor);
}

}  // namespace

Variant make_reference_variant(const OpSpec& op) {
  Variant variant;
  variant.op = op.name;
  variant.name = "reference";
  variant.description = "fp64 recurrence on the host (the oracle of every check), I/O in the case dtype";
  variant.backend = Backend::cpu;
  variant.support.limits = [backward_bytes = op.reference_backward_bytes](
                               const Problem& p, Mode mode,
                               const DeviceLimits&) -> std::optional<std::string> {
    const double bytes = backward_bytes(p);
    if (mode == Mode::fwdbwd && bytes > kMaxBackwardBytesPerHead) {
      return format("the fp64 reference backward keeps every state: %.1f GiB per head, limit %.0f GiB",
                    bytes / (1 << 30), kMaxBackwardBytesPerHead / (1 << 30));
    }
    return std::nullopt;
  };
  variant.forward = [forward = op.reference_forward](const ForwardCall& call) {
    Arrays64 outputs = zeros_like(call.outputs);
    forward(call.problem, decode_all(call.inputs), outputs);
    encode_all(outputs, call.outputs);
  };
  variant.backward = [backward = op.reference_backward](const BackwardCall& call) {
    Arrays64 grads = zeros_like(call.grads);
    backward(call.problem, decode_all(call.inputs), decode_all(call.grad_outputs), grads);
    encode_all(grads, call.grads);
  };
  return variant;
}

}  // namespace flabench
