#include "kernels/common/naive_recurrence.cuh"
#include "kernels/rwkv7/rwkv7.h"

namespace flabench {

Variant rwkv7_naive_variant() {
  return naive::make_variant<Rwkv7Form>("rwkv7", kRwkv7Binding);
}

}  // namespace flabench
