// GLA (gated linear attention) as FLA's chunk_gla, per head with state S in R^{K x V}:
//   S_t = diag(exp(g_t)) S_{t-1} + k_t v_t^T,   o_t = scale * S_t^T q_t
// g is a per-key-channel log decay.
#pragma once

#include "kernels/common/chunked_backward.h"
#include "kernels/common/recurrence.h"
#include "kernels/registry.h"

namespace flabench {

// The recurrence form as a type, for kernel templates.
struct GlaForm {
  static constexpr RecurrenceForm value{.gate = GateKind::per_key};
};

inline const RecurrenceBinding kGlaBinding{.form = GlaForm::value, .q = "q", .k = "k", .v = "v", .g = "g"};

void register_gla(Registry& registry);

Variant gla_naive_variant();
Variant gla_fused_recurrent_variant();
Variant gla_chunk_variant();
// The chunk variant's backward from the states alone, which fused_recurrent's fwd+bwd runs where it can.
ChunkedBackward gla_chunked_backward();

}  // namespace flabench
