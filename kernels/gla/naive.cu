#include "kernels/common/naive_recurrence.cuh"
#include "kernels/gla/gla.h"

namespace flabench {

Variant gla_naive_variant() {
  return naive::make_variant<GlaForm>("gla", kGlaBinding);
}

}  // namespace flabench
