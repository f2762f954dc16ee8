#include "suites/thresholds.h"

namespace flabench {

double check_threshold(DType dtype, TensorRole role, bool tf32) {
  const bool forward = role == TensorRole::forward;
  switch (dtype) {
    case DType::bf16:
      return forward ? 5e-3 : 6e-3;
    case DType::fp16:
      return forward ? 2e-3 : 3e-3;
    case DType::fp32:
      if (tf32) return forward ? 1e-3 : 2e-3;
      return 1e-5;
  }
  return 0;
}

Thresholds reference_thresholds(DType dtype, bool tf32) {
  return {check_threshold(dtype, TensorRole::forward, tf32),
          check_threshold(dtype, TensorRole::gradient, tf32)};
}

Thresholds cross_thresholds(DType dtype, bool tf32_first, bool tf32_second) {
  const Thresholds a = reference_thresholds(dtype, tf32_first), b = reference_thresholds(dtype, tf32_second);
  return {a.forward + b.forward, a.gradient + b.gradient};
}

}  // namespace flabench
