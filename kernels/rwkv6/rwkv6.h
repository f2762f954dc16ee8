// RWKV-6 as FLA's chunk_rwkv6, per head with state S in R^{K x V} and a per-head bonus u in R^K:
//   o_t = scale * (S_{t-1}^T r_t + (r_t . (u o k_t)) v_t),   S_t = diag(exp(w_t)) S_{t-1} + k_t v_t^T
// The output reads the state before this token's update; w is the log decay.
#pragma once

#include "kernels/common/chunked_backward.h"
#include "kernels/common/recurrence.h"
#include "kernels/registry.h"

namespace flabench {

// The recurrence form as a type, for kernel templates.
struct Rwkv6Form {
  static constexpr RecurrenceForm value{
      .gate = GateKind::per_key, .output_before_update = true, .bonus = true};
};

inline const RecurrenceBinding kRwkv6Binding{
    .form = Rwkv6Form::value, .q = "r", .k = "k", .v = "v", .g = "w", .u = "u"};

void register_rwkv6(Registry& registry);

Variant rwkv6_naive_variant();
Variant rwkv6_fused_recurrent_variant();
Variant rwkv6_chunk_variant();
// The chunk variant's backward from the states alone, which fused_recurrent's fwd+bwd runs where it can.
ChunkedBackward rwkv6_chunked_backward();

}  // namespace flabench
