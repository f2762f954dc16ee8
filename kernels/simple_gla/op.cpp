#include "kernels/common/op_helpers.h"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {

void register_simple_gla(Registry& registry) {
  using namespace op_helpers;
  op_helpers::register_op(
      registry,
      recurrence_op(
          {.name = "simple_gla",
           .math = "S_t = exp(g_t) S_{t-1} + k_t v_t^T (g per head);  o_t = scale * S_t^T q_t",
           .inputs =
               {{"q", kTokenKey}, {"k", kTokenKey}, {"v", kTokenValue}, {"g", kTokenHead}, state_input()},
           .binding = kSimpleGlaBinding,
           .flops_per_state_element = 5,
           .default_scale = inverse_sqrt_key_dim,
           .make_inputs = normal_inputs_with_log_sigmoid_gate("g")}),
      {simple_gla_naive_variant(), simple_gla_fused_recurrent_variant(), simple_gla_chunk_variant()});
}

}  // namespace flabench
