#include "kernels/common/fused_recurrent/variant.cuh"
#include "kernels/rwkv7/rwkv7.h"

namespace flabench {

Variant rwkv7_fused_recurrent_variant() {
  return fused::make_variant<Rwkv7Form>("rwkv7", kRwkv7Binding);
}

}  // namespace flabench
