#include "kernels/common/chunk/variant.cuh"
#include "kernels/rwkv6/rwkv6.h"

namespace flabench {

Variant rwkv6_chunk_variant() {
  return chunk::make_variant<Rwkv6Form>("rwkv6", kRwkv6Binding);
}

ChunkedBackward rwkv6_chunked_backward() {
  return chunk::chunked_backward<Rwkv6Form>(kRwkv6Binding);
}

}  // namespace flabench
