#include "kernels/common/chunk/variant.cuh"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {

Variant simple_gla_chunk_variant() {
  return chunk::make_variant<SimpleGlaForm>("simple_gla", kSimpleGlaBinding);
}

}  // namespace flabench
