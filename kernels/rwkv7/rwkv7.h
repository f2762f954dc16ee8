// RWKV-7 as FLA's chunk_rwkv7 (the DPLR delta rule), per head with state S in R^{K x V}:
//   S_t = diag(exp(w_t)) S_{t-1} + b_t (a_t^T S_{t-1}) + k_t v_t^T,   o_t = scale * S_t^T r_t
// w is the log decay; in the RWKV-7 layer a = -kk and b = kk * a_gate with kk an L2-normalised key.
#pragma once

#include "kernels/common/recurrence.h"
#include "kernels/registry.h"

namespace flabench {

// The recurrence form as a type, for kernel templates.
struct Rwkv7Form {
  static constexpr RecurrenceForm value{.gate = GateKind::per_key, .low_rank = true};
};

inline const RecurrenceBinding kRwkv7Binding{
    .form = Rwkv7Form::value, .q = "r", .k = "k", .v = "v", .g = "w", .a = "a", .b = "b"};

void register_rwkv7(Registry& registry);

Variant rwkv7_naive_variant();
Variant rwkv7_fused_recurrent_variant();
Variant rwkv7_chunk_variant();

}  // namespace flabench
