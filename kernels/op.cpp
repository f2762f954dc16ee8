#include "kernels/op.h"

namespace flabench {

Shape TensorSpec::shape(const Problem& p) const {
  Shape shape;
  for (Extent extent : extents) {
    switch (extent) {
      case Extent::B:
        shape.push_back(p.B);
        break;
      case Extent::T:
        shape.push_back(p.T);
        break;
      case Extent::H:
        shape.push_back(p.H);
        break;
      case Extent::K:
        shape.push_back(p.K);
        break;
      case Extent::V:
        shape.push_back(p.V);
        break;
      case Extent::M:
        shape.push_back(p.M);
        break;
      case Extent::HQ:
        shape.push_back(p.H * p.G);
        break;
    }
  }
  return shape;
}

namespace {

TensorSpec gradient_of(const TensorSpec& spec) {
  TensorSpec grad = spec;
  grad.name = "d" + spec.name;
  return grad;
}

double spec_bytes(const TensorSpec& spec, const Problem& p) {
  return static_cast<double>(element_count(spec.shape(p))) * static_cast<double>(dtype_size(spec.dtype(p)));
}

}  // namespace

std::vector<TensorSpec> grad_output_specs(const OpSpec& op) {
  std::vector<TensorSpec> specs;
  for (const TensorSpec& output : op.outputs) specs.push_back(gradient_of(output));
  return specs;
}

std::vector<TensorSpec> grad_specs(const OpSpec& op) {
  std::vector<TensorSpec> specs;
  for (const TensorSpec& input : op.inputs)
    if (input.differentiable) specs.push_back(gradient_of(input));
  return specs;
}

double case_flops(const OpSpec& op, const Problem& problem, Mode mode) {
  const double forward = op.forward_flops(problem);
  return mode == Mode::fwd ? forward : 3.0 * forward;
}

double floor_bytes(const OpSpec& op, const Problem& p, Mode mode) {
  double inputs = 0, outputs = 0, first_output = 0, grads = 0, grad_outputs = 0;
  for (const TensorSpec& spec : op.inputs) inputs += spec_bytes(spec, p);
  for (const TensorSpec& spec : op.outputs) outputs += spec_bytes(spec, p);
  if (!op.outputs.empty()) first_output = spec_bytes(op.outputs.front(), p);
  for (const TensorSpec& spec : grad_specs(op)) grads += spec_bytes(spec, p);
  for (const TensorSpec& spec : grad_output_specs(op)) grad_outputs += spec_bytes(spec, p);
  const double forward = inputs + outputs;
  if (mode == Mode::fwd) return forward;
  return forward + inputs + first_output + grad_outputs + grads;
}

}  // namespace flabench
