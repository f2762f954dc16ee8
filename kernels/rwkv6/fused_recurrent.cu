#include "kernels/common/fused_recurrent/backward_in_chunks.cuh"
#include "kernels/rwkv6/rwkv6.h"

namespace flabench {

Variant rwkv6_fused_recurrent_variant() {
  return fused::with_backward_in_chunks<Rwkv6Form>(fused::make_variant<Rwkv6Form>("rwkv6", kRwkv6Binding),
                                                   kRwkv6Binding, rwkv6_chunked_backward());
}

}  // namespace flabench
