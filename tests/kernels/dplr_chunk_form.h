// rwkv7's chunk form (the DPLR delta rule in WY form, ops.md §3.3) on the host, with every intermediate's
// storage precision a parameter, to measure which ones a chunk kernel must keep in fp32 (issue 5). Arithmetic
// is fp64; an intermediate marked bf16 or fp32 is rounded to it where it is written, as a kernel storing it
// in that type would. Per chunk of C tokens, with Γ (inclusive) and Γe (exclusive) cumulative log decays:
//   A_qk[i,j] = q_i.(k_j e^{Γ_i-Γ_j}), A_qb likewise with b (j <= i); A_ak, A_ab with a_i e^{Γe_i} (j < i)
//   W = (I - A_ab)^{-1} (a ⊙ e^{Γe}),  U = (I - A_ab)^{-1} A_ak V,  V_new = U + W S  (row i: a_i^T S_{i-1})
//   O = (q ⊙ e^Γ) S + A_qk V + A_qb V_new,   S <- e^{Γ_L} S + (k ⊙ e^{Γ_L-Γ})^T V + (b ⊙ e^{Γ_L-Γ})^T V_new
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/problem.h"
#include "kernels/common/tensor.h"

namespace flabench::testing {

// The forward's intermediates (A_qk .. state), then what a chunked backward stores between its passes or
// hands from one phase to the next (dstate .. dW; tests/kernels/dplr_chunk_backward_form.h).
enum class Intermediate {
  A_qk,
  A_qb,
  A_ak,
  A_ab,
  A_ab_inverse,
  W,
  U,
  V_new,
  gated_q,
  gated_k,
  gated_a,
  gated_b,
  state,
  dstate,
  dV_new,
  dA_qk,
  dA_qb,
  dA_ak,
  dA_ab,
  dW
};
inline bool of_backward(Intermediate what) {
  return what >= Intermediate::dstate;
}

inline const std::map<Intermediate, std::string>& intermediate_names() {
  static const std::map<Intermediate, std::string> names{{Intermediate::A_qk, "A_qk"},
                                                         {Intermediate::A_qb, "A_qb"},
                                                         {Intermediate::A_ak, "A_ak"},
                                                         {Intermediate::A_ab, "A_ab"},
                                                         {Intermediate::A_ab_inverse, "(I-A_ab)^-1"},
                                                         {Intermediate::W, "W"},
                                                         {Intermediate::U, "U"},
                                                         {Intermediate::V_new, "V_new"},
                                                         {Intermediate::gated_q, "q e^G"},
                                                         {Intermediate::gated_k, "k e^(G_L-G)"},
                                                         {Intermediate::gated_a, "a e^Ge"},
                                                         {Intermediate::gated_b, "b e^(G_L-G)"},
                                                         {Intermediate::state, "S between chunks"},
                                                         {Intermediate::dstate, "dS between chunks"},
                                                         {Intermediate::dV_new, "dV_new"},
                                                         {Intermediate::dA_qk, "dA_qk"},
                                                         {Intermediate::dA_qb, "dA_qb"},
                                                         {Intermediate::dA_ak, "dA_ak"},
                                                         {Intermediate::dA_ab, "dA_ab"},
                                                         {Intermediate::dW, "dW"}};
  return names;
}

// The type each intermediate is stored in; anything not listed is fp64.
using StoragePlan = std::map<Intermediate, DType>;

inline double stored(const StoragePlan& plan, Intermediate what, double x) {
  const auto found = plan.find(what);
  return found == plan.end() ? x : double(round_to_dtype(found->second, float(x)));
}

// Where head (bb, h)'s chunk of tokens from t0 reads its inputs.
struct ChunkView {
  const Problem& p;
  std::int64_t bb, h, t0;
  std::int64_t row(std::int64_t t) const { return (bb * p.T + t0 + t) * p.H + h; }  // [B, T, H, D] rows
  double at(const std::vector<double>& x, std::int64_t t, std::int64_t c) const {
    return x[row(t) * p.K + c];
  }
};

// One chunk's intermediates before the state enters (local rows 0 .. L-1), each rounded where the plan says a
// kernel stores it: the cumulative log decays Γ (inclusive) and Γe (exclusive) [L][K], A_qk, A_qb, A_ak,
// A_ab and X = (I - A_ab)^{-1} [L][L], W [L][K], A_ak V and U [L][V].
struct DplrChunk {
  std::int64_t L;
  std::vector<double> G, Ge, Aqk, Aqb, Aak, Aab, inv, W, AkV, U;
};

inline DplrChunk dplr_chunk(const ChunkView& x, std::int64_t L, const Arrays64& in, const StoragePlan& plan) {
  const Problem& p = x.p;
  const std::int64_t K = p.K, V = p.V;
  const auto &r = in.at("r").values, &w = in.at("w").values, &k = in.at("k").values, &v = in.at("v").values,
             &a = in.at("a").values, &b = in.at("b").values;
  const auto put = [&](Intermediate what, double value) { return stored(plan, what, value); };
  DplrChunk ch;
  ch.L = L, ch.G.assign(L * K, 0), ch.Ge.assign(L * K, 0);
  for (std::int64_t c = 0; c < K; ++c) {
    double sum = 0;
    for (std::int64_t i = 0; i < L; ++i) {
      ch.Ge[i * K + c] = sum;
      sum += x.at(w, i, c);
      ch.G[i * K + c] = sum;
    }
  }
  ch.Aqk.assign(L * L, 0), ch.Aqb.assign(L * L, 0), ch.Aak.assign(L * L, 0), ch.Aab.assign(L * L, 0);
  for (std::int64_t i = 0; i < L; ++i)
    for (std::int64_t j = 0; j <= i; ++j) {
      double qk = 0, qb = 0, ak = 0, ab = 0;
      for (std::int64_t c = 0; c < K; ++c) {
        const double inclusive = std::exp(ch.G[i * K + c] - ch.G[j * K + c]);
        const double exclusive = std::exp(ch.Ge[i * K + c] - ch.G[j * K + c]);
        const double qi = p.scale * x.at(r, i, c), ai = x.at(a, i, c);
        qk += qi * x.at(k, j, c) * inclusive;
        qb += qi * x.at(b, j, c) * inclusive;
        if (j < i) ak += ai * x.at(k, j, c) * exclusive, ab += ai * x.at(b, j, c) * exclusive;
      }
      ch.Aqk[i * L + j] = put(Intermediate::A_qk, qk), ch.Aqb[i * L + j] = put(Intermediate::A_qb, qb);
      ch.Aak[i * L + j] = put(Intermediate::A_ak, ak), ch.Aab[i * L + j] = put(Intermediate::A_ab, ab);
    }
  // (I - A_ab)^{-1}, unit lower triangular, by forward substitution row by row.
  ch.inv.assign(L * L, 0);
  for (std::int64_t i = 0; i < L; ++i) {
    ch.inv[i * L + i] = 1;
    for (std::int64_t j = 0; j < i; ++j) {
      double sum = 0;
      for (std::int64_t m = j; m < i; ++m) sum += ch.Aab[i * L + m] * ch.inv[m * L + j];
      ch.inv[i * L + j] = put(Intermediate::A_ab_inverse, sum);
    }
  }
  ch.W.assign(L * K, 0), ch.AkV.assign(L * V, 0), ch.U.assign(L * V, 0);
  for (std::int64_t m = 0; m < L; ++m)
    for (std::int64_t n = 0; n < m; ++n)
      for (std::int64_t j = 0; j < V; ++j) ch.AkV[m * V + j] += ch.Aak[m * L + n] * v[x.row(n) * V + j];
  for (std::int64_t i = 0; i < L; ++i) {
    for (std::int64_t c = 0; c < K; ++c) {
      double sum = 0;
      for (std::int64_t m = 0; m <= i; ++m)
        sum += ch.inv[i * L + m] * put(Intermediate::gated_a, x.at(a, m, c) * std::exp(ch.Ge[m * K + c]));
      ch.W[i * K + c] = put(Intermediate::W, sum);
    }
    for (std::int64_t j = 0; j < V; ++j) {
      double sum = 0;
      for (std::int64_t m = 0; m <= i; ++m) sum += ch.inv[i * L + m] * ch.AkV[m * V + j];
      ch.U[i * V + j] = put(Intermediate::U, sum);
    }
  }
  return ch;
}

// V_new = U + W S: row i is a_i^T S_{i-1}, with S the state at the chunk's start [K][V].
inline std::vector<double> dplr_chunk_vnew(const DplrChunk& ch, const std::vector<double>& S, std::int64_t K,
                                           std::int64_t V, const StoragePlan& plan) {
  std::vector<double> Vnew(ch.L * V);
  for (std::int64_t i = 0; i < ch.L; ++i)
    for (std::int64_t j = 0; j < V; ++j) {
      double sum = ch.U[i * V + j];
      for (std::int64_t c = 0; c < K; ++c) sum += ch.W[i * K + c] * S[c * V + j];
      Vnew[i * V + j] = stored(plan, Intermediate::V_new, sum);
    }
  return Vnew;
}

// The state at the chunk's end from the state at its start, in place.
inline void dplr_chunk_update(const ChunkView& x, const DplrChunk& ch, const Arrays64& in,
                              const std::vector<double>& Vnew, std::vector<double>& S,
                              const StoragePlan& plan) {
  const std::int64_t K = x.p.K, V = x.p.V, L = ch.L;
  const auto &k = in.at("k").values, &v = in.at("v").values, &b = in.at("b").values;
  for (std::int64_t c = 0; c < K; ++c) {
    const double end = ch.G[(L - 1) * K + c];
    for (std::int64_t j = 0; j < V; ++j) {
      double sum = std::exp(end) * S[c * V + j];
      for (std::int64_t m = 0; m < L; ++m) {
        const double decay = std::exp(end - ch.G[m * K + c]);
        sum += stored(plan, Intermediate::gated_k, x.at(k, m, c) * decay) * v[x.row(m) * V + j] +
               stored(plan, Intermediate::gated_b, x.at(b, m, c) * decay) * Vnew[m * V + j];
      }
      S[c * V + j] = stored(plan, Intermediate::state, sum);
    }
  }
}

// Walks head (bb, h)'s chunks in order from its initial state, calling visit(view, chunk, S, V_new) with S
// the state at the chunk's start; returns the final state.
template <class Visit>
std::vector<double> dplr_chunk_scan(const Problem& p, int C, std::int64_t bb, std::int64_t h,
                                    const Arrays64& in, const StoragePlan& plan, const Visit& visit) {
  const std::int64_t K = p.K, V = p.V;
  const auto& h0 = in.at("h0").values;
  std::vector<double> S(h0.begin() + (bb * p.H + h) * K * V, h0.begin() + (bb * p.H + h + 1) * K * V);
  for (std::int64_t t0 = 0; t0 < p.T; t0 += C) {
    const ChunkView x{p, bb, h, t0};
    const DplrChunk ch = dplr_chunk(x, std::min<std::int64_t>(C, p.T - t0), in, plan);
    const std::vector<double> Vnew = dplr_chunk_vnew(ch, S, K, V, plan);
    visit(x, ch, S, Vnew);
    dplr_chunk_update(x, ch, in, Vnew, S, plan);
  }
  return S;
}

// o and ht of rwkv7 (inputs r, w, k, v, a, b, h0 as kernels/rwkv7/op.cpp names them) in chunk form.
inline void dplr_chunk_forward(const Problem& p, int C, const Arrays64& in, Arrays64& out,
                               const StoragePlan& plan) {
  const std::int64_t K = p.K, V = p.V;
  const auto &r = in.at("r").values, &v = in.at("v").values;
  auto &o = out.at("o").values, &ht = out.at("ht").values;
  const auto outputs = [&](const ChunkView& x, const DplrChunk& ch, const std::vector<double>& S,
                           const std::vector<double>& Vnew) {
    const std::int64_t L = ch.L;
    for (std::int64_t i = 0; i < L; ++i)
      for (std::int64_t j = 0; j < V; ++j) {
        double sum = 0;
        for (std::int64_t c = 0; c < K; ++c)
          sum += stored(plan, Intermediate::gated_q, p.scale * x.at(r, i, c) * std::exp(ch.G[i * K + c])) *
                 S[c * V + j];
        for (std::int64_t m = 0; m <= i; ++m)
          sum += ch.Aqk[i * L + m] * v[x.row(m) * V + j] + ch.Aqb[i * L + m] * Vnew[m * V + j];
        o[x.row(i) * V + j] = sum;
      }
  };
  for (std::int64_t bb = 0; bb < p.B; ++bb)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const std::vector<double> S = dplr_chunk_scan(p, C, bb, h, in, plan, outputs);
      std::copy(S.begin(), S.end(), ht.begin() + (bb * p.H + h) * K * V);
    }
}

}  // namespace flabench::testing
