#include "suites/case_tensors.h"

namespace flabench {

CaseTensors::CaseTensors(Device& device, const OpSpec& op, const Variant& variant, const Problem& problem,
                         Mode mode)
    : device_(device) {
  inputs = allocate(op.inputs, problem);
  outputs = allocate(op.outputs, problem);
  if (mode == Mode::fwdbwd) {
    grad_outputs = allocate(grad_output_specs(op), problem);
    grads = allocate(grad_specs(op), problem);
  }
  const std::size_t workspace_bytes =
      variant.workspace_bytes ? variant.workspace_bytes(problem, mode, device_.limits()) : 0;
  storage_.emplace_back(device_, workspace_bytes);
  workspace = {static_cast<std::byte*>(storage_.back().data()), workspace_bytes};
}

std::size_t CaseTensors::tensor_bytes() const {
  std::size_t bytes = 0;
  for (const TensorMap* tensors : {&inputs, &outputs, &grad_outputs, &grads})
    for (const auto& [name, tensor] : *tensors) bytes += tensor.bytes();
  return bytes;
}

TensorMap CaseTensors::allocate(const std::vector<TensorSpec>& specs, const Problem& problem) {
  TensorMap tensors;
  for (const TensorSpec& spec : specs) {
    Tensor tensor{nullptr, spec.dtype(problem), spec.shape(problem)};
    storage_.emplace_back(device_, tensor.bytes());
    tensor.data = storage_.back().data();
    tensors.set(spec.name, tensor);
  }
  return tensors;
}

void CaseTensors::upload(const HostValuesMap& values, const TensorMap& tensors) {
  for (const auto& [name, tensor] : tensors) {
    std::vector<std::byte> staging(tensor.bytes());
    encode_values(tensor.dtype, values.at(name).values, staging.data());
    device_.upload(tensor.data, staging.data(), staging.size());
  }
}

Arrays64 CaseTensors::download(const TensorMap& tensors) {
  device_.synchronize();
  Arrays64 arrays;
  for (const auto& [name, tensor] : tensors) {
    std::vector<std::byte> staging(tensor.bytes());
    device_.download(staging.data(), tensor.data, staging.size());
    Tensor host = tensor;
    host.data = staging.data();
    arrays.set(name, decode_tensor(host));
  }
  return arrays;
}

void CaseTensors::fill(const TensorMap& tensors, unsigned char byte) {
  for (const auto& [name, tensor] : tensors) device_.fill(tensor.data, byte, tensor.bytes());
}

}  // namespace flabench
