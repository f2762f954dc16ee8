#include "kernels/common/op_helpers.h"
#include "kernels/rwkv6/rwkv6.h"

namespace flabench {

void register_rwkv6(Registry& registry) {
  using namespace op_helpers;
  op_helpers::register_op(registry,
                          recurrence_op({.name = "rwkv6",
                                         .math = "o_t = scale * (S_{t-1}^T r_t + (r_t . (u o k_t)) v_t);  "
                                                 "S_t = diag(exp(w_t)) S_{t-1} + k_t v_t^T",
                                         .inputs = {{"r", kTokenKey},
                                                    {"k", kTokenKey},
                                                    {"v", kTokenValue},
                                                    {"w", kTokenKey},
                                                    {"u", kHeadKey},
                                                    state_input()},
                                         .binding = kRwkv6Binding,
                                         .flops_per_state_element = 5,
                                         .default_scale = inverse_sqrt_key_dim,
                                         .make_inputs = normal_inputs_with_log_sigmoid_gate("w")}),
                          {rwkv6_naive_variant(), rwkv6_fused_recurrent_variant(), rwkv6_chunk_variant()});
}

}  // namespace flabench
