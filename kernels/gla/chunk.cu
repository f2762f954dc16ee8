#include "kernels/common/chunk/variant.cuh"
#include "kernels/gla/gla.h"

namespace flabench {

Variant gla_chunk_variant() {
  return chunk::make_variant<GlaForm>("gla", kGlaBinding);
}

ChunkedBackward gla_chunked_backward() {
  return chunk::chunked_backward<GlaForm>(kGlaBinding);
}

}  // namespace flabench
