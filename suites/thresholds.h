// Check thresholds on RMS(ref - x) / RMS(ref), in one place (shared/spec/numerics.md): about 2-3x what
// correct kernels measure, so a real bug fails clearly. Tighten when data allows; never loosen to pass.
#pragma once

#include "kernels/common/dtype.h"

namespace flabench {

// o; a recurrent state or its gradient (the final state, the initial state's gradient: fp32 whatever the
// inputs' dtype); every other gradient
enum class TensorRole { forward, state, gradient };

double check_threshold(DType dtype, TensorRole role, bool tf32);

struct Thresholds {
  double forward = 0, state = 0, gradient = 0;
};

// A variant against the fp64 reference.
Thresholds reference_thresholds(DType dtype, bool tf32);
// Two variants against each other: each may sit its own threshold away from the reference, so the pair may
// differ by the sum (the triangle inequality on RMS(ref - x)).
Thresholds cross_thresholds(DType dtype, bool tf32_first, bool tf32_second);

}  // namespace flabench
