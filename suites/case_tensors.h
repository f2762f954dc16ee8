// Every tensor one case needs on its device: inputs, outputs, incoming gradients, gradients, workspace.
#pragma once

#include <vector>

#include "kernels/op.h"
#include "kernels/variant.h"
#include "suites/device.h"

namespace flabench {

class CaseTensors {
 public:
  CaseTensors(Device& device, const OpSpec& op, const Variant& variant, const Problem& problem, Mode mode);

  // Encodes host values into each tensor's dtype and copies them to the device.
  void upload(const HostValuesMap& values, const TensorMap& tensors);
  // Copies tensors back and decodes them to fp64.
  Arrays64 download(const TensorMap& tensors);
  // Sets every byte of the tensors to `byte`: 0xFF makes them NaN, so elements a variant never writes cannot
  // pass a check.
  void fill(const TensorMap& tensors, unsigned char byte);

  // The device bytes of the tensors above (the workspace apart).
  std::size_t tensor_bytes() const;

  TensorMap inputs, outputs, grad_outputs, grads;
  std::span<std::byte> workspace;

 private:
  TensorMap allocate(const std::vector<TensorSpec>& specs, const Problem& problem);

  Device& device_;
  std::vector<DeviceBuffer> storage_;
};

}  // namespace flabench
