#include "kernels/common/naive_recurrence.cuh"
#include "kernels/rwkv6/rwkv6.h"

namespace flabench {

Variant rwkv6_naive_variant() {
  return naive::make_variant<Rwkv6Form>("rwkv6", kRwkv6Binding);
}

}  // namespace flabench
