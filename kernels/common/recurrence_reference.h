// The fp64 reference of the recurrence in recurrence.h: a plain loop over time forward, and backpropagation
// through time (every state kept) backward. It is the oracle of every check.
#pragma once

#include "kernels/common/problem.h"
#include "kernels/common/recurrence.h"
#include "kernels/common/tensor.h"
#include "kernels/op.h"

namespace flabench {

void recurrence_reference_forward(const RecurrenceBinding& binding, const Problem& problem,
                                  const Arrays64& inputs, Arrays64& outputs);

void recurrence_reference_backward(const RecurrenceBinding& binding, const Problem& problem,
                                   const Arrays64& inputs, const Arrays64& grad_outputs, Arrays64& grads);

// The fp64 bytes backward keeps per head: (T + 1) states of K x V.
double recurrence_reference_backward_bytes(const Problem& problem);

ReferenceForward make_reference_forward(RecurrenceBinding binding);
ReferenceBackward make_reference_backward(RecurrenceBinding binding);

}  // namespace flabench
