// The recurrence every op here is an instance of, per batch b and head h, state S in R^{K x V}:
//
//   S_t = diag(exp(g_t)) S_{t-1} + b_t (a_t^T S_{t-1}) + k_t v_t^T
//   o_t = scale * S_t^T q_t                                     (output after the update), or
//   o_t = scale * (S_{t-1}^T q_t + (q_t . (u o k_t)) v_t)       (output before the update, with a bonus u)
//
// g is a log decay, per key channel [B,T,H,K] or per head [B,T,H]; the low-rank term (a, b) is rwkv7's.
// An op binds its own tensor names to these roles (q is rwkv's r, g is rwkv's w).
// One more form exists for the fused_recurrent forward alone: a decay per value channel [B,T,H,V] on S's
// columns, S_t = S_{t-1} diag(exp(g_t)) + k_t v_t^T, which is gsa's first pass (kernels/gsa/gla_passes.cuh);
// no registered op has it, so the references and the other variants never see it.
#pragma once

#include <string>

namespace flabench {

enum class GateKind { per_key, per_head, per_value };

struct RecurrenceForm {
  GateKind gate = GateKind::per_key;
  bool output_before_update = false;  // rwkv6: o_t reads S_{t-1}
  bool bonus = false;                 // rwkv6: u weights the current token (needs output_before_update)
  bool low_rank = false;              // rwkv7: b_t (a_t^T S_{t-1})
};

// The op's names for the roles of the recurrence; empty for roles the op does not have.
struct RecurrenceBinding {
  RecurrenceForm form{};
  std::string q{}, k{}, v{}, g{}, u{}, a{}, b{};
  std::string h0 = "h0", o = "o", ht = "ht";
};

}  // namespace flabench
