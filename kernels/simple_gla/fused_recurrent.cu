#include "kernels/common/fused_recurrent/variant.cuh"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {

Variant simple_gla_fused_recurrent_variant() {
  return fused::make_variant<SimpleGlaForm>("simple_gla", kSimpleGlaBinding);
}

}  // namespace flabench
