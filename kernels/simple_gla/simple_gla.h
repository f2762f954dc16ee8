// Simple GLA as FLA's chunk_simple_gla, per head with state S in R^{K x V} and one scalar gate per head:
//   S_t = exp(g_t) S_{t-1} + k_t v_t^T,   o_t = scale * S_t^T q_t      (g: [B, T, H] log decay)
#pragma once

#include "kernels/common/chunked_backward.h"
#include "kernels/common/recurrence.h"
#include "kernels/registry.h"

namespace flabench {

// The recurrence form as a type, for kernel templates.
struct SimpleGlaForm {
  static constexpr RecurrenceForm value{.gate = GateKind::per_head};
};

inline const RecurrenceBinding kSimpleGlaBinding{
    .form = SimpleGlaForm::value, .q = "q", .k = "k", .v = "v", .g = "g"};

void register_simple_gla(Registry& registry);

Variant simple_gla_naive_variant();
Variant simple_gla_fused_recurrent_variant();
Variant simple_gla_chunk_variant();
// The chunk variant's backward from the states alone, which fused_recurrent's fwd+bwd runs where it can.
ChunkedBackward simple_gla_chunked_backward();

}  // namespace flabench
