#include "kernels/common/fused_recurrent/variant.cuh"
#include "kernels/rwkv6/rwkv6.h"

namespace flabench {

Variant rwkv6_fused_recurrent_variant() {
  return fused::make_variant<Rwkv6Form>("rwkv6", kRwkv6Binding);
}

}  // namespace flabench
