// The one list of ops: adding an op adds one line here.
#include "kernels/gla/gla.h"
#include "kernels/gsa/gsa.h"
#include "kernels/registry.h"
#include "kernels/rwkv6/rwkv6.h"
#include "kernels/rwkv7/rwkv7.h"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {

void register_all_ops(Registry& registry) {
  register_rwkv6(registry);
  register_rwkv7(registry);
  register_gla(registry);
  register_simple_gla(registry);
  register_gsa(registry);
}

}  // namespace flabench
