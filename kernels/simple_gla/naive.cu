#include "kernels/common/naive_recurrence.cuh"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {

Variant simple_gla_naive_variant() {
  return naive::make_variant<SimpleGlaForm>("simple_gla", kSimpleGlaBinding);
}

}  // namespace flabench
