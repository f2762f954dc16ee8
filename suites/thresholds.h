// Check thresholds on RMS(ref - x) / RMS(ref), in one place (shared/spec/numerics.md): about 2-3x what
// correct kernels measure, so a real bug fails clearly. Tighten when data allows; never loosen to pass.
#pragma once

#include "kernels/common/dtype.h"

namespace flabench {

enum class TensorRole { forward, gradient };  // o and final state; every gradient

double check_threshold(DType dtype, TensorRole role, bool tf32);

}  // namespace flabench
