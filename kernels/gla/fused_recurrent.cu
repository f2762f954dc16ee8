#include "kernels/common/fused_recurrent/backward_in_chunks.cuh"
#include "kernels/gla/gla.h"

namespace flabench {

Variant gla_fused_recurrent_variant() {
  return fused::with_backward_in_chunks<GlaForm>(fused::make_variant<GlaForm>("gla", kGlaBinding),
                                                 kGlaBinding, gla_chunked_backward());
}

}  // namespace flabench
