// Helpers shared by the tests: small problems, op inputs in fp64, and running an op's reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "suites/inputs.h"

namespace flabench::testing {

inline Problem small_problem(const OpSpec& op, std::int64_t B, std::int64_t T, std::int64_t H, std::int64_t K,
                             std::int64_t V, DType dtype = DType::fp32) {
  Problem p{B, T, H, K, V, dtype};
  p.M = op.slots.empty() ? 0 : 4;  // small, != K and V, for the references' tests
  p.G = op.grouped_queries ? 2 : 1;
  p.scale = op.default_scale(p);
  return p;
}

inline Arrays64 zero_arrays(const std::vector<TensorSpec>& specs, const Problem& p) {
  Arrays64 arrays;
  for (const TensorSpec& spec : specs) arrays.set(spec.name, Array64(spec.shape(p)));
  return arrays;
}

inline Arrays64 reference_outputs(const OpSpec& op, const Problem& p, const Arrays64& inputs) {
  Arrays64 outputs = zero_arrays(op.outputs, p);
  op.reference_forward(p, inputs, outputs);
  return outputs;
}

// A result against the fp64 reference: ||got - want|| / ||want||, the largest |got - want|, and whether every
// value of `got` is finite.
struct Deviation {
  double rms_ratio, max_abs;
  bool finite;
};
inline Deviation compare(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0, worst = 0;
  bool finite = true;
  for (std::size_t e = 0; e < got.size(); ++e) {
    finite = finite && std::isfinite(got[e]);
    diff += (got[e] - want[e]) * (got[e] - want[e]);
    norm += want[e] * want[e];
    worst = std::max(worst, std::abs(got[e] - want[e]));
  }
  return {std::sqrt(diff / std::max(norm, 1e-300)), worst, finite};
}

inline const OpSpec& op_named(const std::string& name) {
  return *product_registry().find_op(name);
}

}  // namespace flabench::testing
