#include "kernels/common/fused_recurrent/backward_in_chunks.cuh"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {

Variant simple_gla_fused_recurrent_variant() {
  return fused::with_backward_in_chunks<SimpleGlaForm>(
      fused::make_variant<SimpleGlaForm>("simple_gla", kSimpleGlaBinding), kSimpleGlaBinding,
      simple_gla_chunked_backward());
}

}  // namespace flabench
