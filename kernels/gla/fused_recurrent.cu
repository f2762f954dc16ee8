#include "kernels/common/fused_recurrent/variant.cuh"
#include "kernels/gla/gla.h"

namespace flabench {

Variant gla_fused_recurrent_variant() {
  return fused::make_variant<GlaForm>("gla", kGlaBinding);
}

}  // namespace flabench
