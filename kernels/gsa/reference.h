// The fp64 reference of gsa (gsa.h): a plain loop over time forward, and backpropagation through time with
// every state pair kept, backward. The oracle of gsa's checks.
#pragma once

#include "kernels/common/problem.h"
#include "kernels/common/tensor.h"

namespace flabench {

void gsa_reference_forward(const Problem& problem, const Arrays64& inputs, Arrays64& outputs);
void gsa_reference_backward(const Problem& problem, const Arrays64& inputs, const Arrays64& grad_outputs,
                            Arrays64& grads);

// The fp64 bytes backward keeps per (batch, head): (T + 1) state pairs of K x M and M x V.
double gsa_reference_backward_bytes(const Problem& problem);

}  // namespace flabench
