// rwkv7's chunk form (the DPLR delta rule in WY form, ops.md §3.3) on the host, with every intermediate's
// storage precision a parameter, to measure which ones a chunk kernel must keep in fp32 (issue 5). Arithmetic
// is fp64; an intermediate marked bf16 or fp32 is rounded to it where it is written, as a kernel storing it
// in that type would. Per chunk of C tokens, with Γ (inclusive) and Γe (exclusive) cumulative log decays:
//   A_qk[i,j] = q_i.(k_j e^{Γ_i-Γ_j}), A_qb likewise with b (j <= i); A_ak, A_ab with a_i e^{Γe_i} (j < i)
//   W = (I - A_ab)^{-1} (a ⊙ e^{Γe}),  U = (I - A_ab)^{-1} A_ak V,  V_new = U + W S  (row i: a_i^T S_{i-1})
//   O = (q ⊙ e^Γ) S + A_qk V + A_qb V_new,   S <- e^{Γ_L} S + (k ⊙ e^{Γ_L-Γ})^T V + (b ⊙ e^{Γ_L-Γ})^T V_new
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/problem.h"
#include "kernels/common/tensor.h"

namespace flabench::testing {

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
  state
};

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
                                                         {Intermediate::state, "S between chunks"}};
  return names;
}

// The type each intermediate is stored in; anything not listed is fp64.
using StoragePlan = std::map<Intermediate, DType>;

inline double stored(const StoragePlan& plan, Intermediate what, double x) {
  const auto found = plan.find(what);
  return found == plan.end() ? x : double(round_to_dtype(found->second, float(x)));
}

// o and ht of rwkv7 (inputs r, w, k, v, a, b, h0 as kernels/rwkv7/op.cpp names them) in chunk form.
inline void dplr_chunk_forward(const Problem& p, int C, const Arrays64& in, Arrays64& out,
                               const StoragePlan& plan) {
  const std::int64_t K = p.K, V = p.V;
  const auto &r = in.at("r").values, &w = in.at("w").values, &k = in.at("k").values, &v = in.at("v").values,
             &a = in.at("a").values, &b = in.at("b").values, &h0 = in.at("h0").values;
  auto &o = out.at("o").values, &ht = out.at("ht").values;
  const auto put = [&](Intermediate what, double x) { return stored(plan, what, x); };
  for (std::int64_t bb = 0; bb < p.B; ++bb)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto row = [&](std::int64_t t) { return (bb * p.T + t) * p.H + h; };
      std::vector<double> S(K * V);
      for (std::int64_t e = 0; e < K * V; ++e) S[e] = h0[(bb * p.H + h) * K * V + e];
      for (std::int64_t t0 = 0; t0 < p.T; t0 += C) {
        const std::int64_t L = std::min<std::int64_t>(C, p.T - t0);
        std::vector<double> G(L * K), Ge(L * K);
        for (std::int64_t c = 0; c < K; ++c) {
          double sum = 0;
          for (std::int64_t i = 0; i < L; ++i) {
            Ge[i * K + c] = sum;
            sum += w[row(t0 + i) * K + c];
            G[i * K + c] = sum;
          }
        }
        const auto at = [&](const std::vector<double>& x, std::int64_t t, std::int64_t c) {
          return x[row(t0 + t) * K + c];
        };
        std::vector<double> Aqk(L * L, 0), Aqb(L * L, 0), Aak(L * L, 0), Aab(L * L, 0);
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t j = 0; j <= i; ++j) {
            double qk = 0, qb = 0, ak = 0, ab = 0;
            for (std::int64_t c = 0; c < K; ++c) {
              const double inclusive = std::exp(G[i * K + c] - G[j * K + c]);
              const double exclusive = std::exp(Ge[i * K + c] - G[j * K + c]);
              const double qi = p.scale * at(r, i, c), ai = at(a, i, c);
              qk += qi * at(k, j, c) * inclusive;
              qb += qi * at(b, j, c) * inclusive;
              if (j < i) ak += ai * at(k, j, c) * exclusive, ab += ai * at(b, j, c) * exclusive;
            }
            Aqk[i * L + j] = put(Intermediate::A_qk, qk), Aqb[i * L + j] = put(Intermediate::A_qb, qb);
            Aak[i * L + j] = put(Intermediate::A_ak, ak), Aab[i * L + j] = put(Intermediate::A_ab, ab);
          }
        // (I - A_ab)^{-1}, unit lower triangular, by forward substitution row by row.
        std::vector<double> inv(L * L, 0);
        for (std::int64_t i = 0; i < L; ++i) {
          inv[i * L + i] = 1;
          for (std::int64_t j = 0; j < i; ++j) {
            double sum = 0;
            for (std::int64_t m = j; m < i; ++m) sum += Aab[i * L + m] * inv[m * L + j];
            inv[i * L + j] = put(Intermediate::A_ab_inverse, sum);
          }
        }
        std::vector<double> Wm(L * K), U(L * V), Vnew(L * V), AkV(L * V, 0);
        for (std::int64_t m = 0; m < L; ++m)
          for (std::int64_t n = 0; n < m; ++n)
            for (std::int64_t j = 0; j < V; ++j) AkV[m * V + j] += Aak[m * L + n] * v[row(t0 + n) * V + j];
        for (std::int64_t i = 0; i < L; ++i) {
          for (std::int64_t c = 0; c < K; ++c) {
            double sum = 0;
            for (std::int64_t m = 0; m <= i; ++m)
              sum += inv[i * L + m] * put(Intermediate::gated_a, at(a, m, c) * std::exp(Ge[m * K + c]));
            Wm[i * K + c] = put(Intermediate::W, sum);
          }
          for (std::int64_t j = 0; j < V; ++j) {
            double sum = 0;
            for (std::int64_t m = 0; m <= i; ++m) sum += inv[i * L + m] * AkV[m * V + j];
            U[i * V + j] = put(Intermediate::U, sum);
          }
        }
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t j = 0; j < V; ++j) {
            double sum = U[i * V + j];
            for (std::int64_t c = 0; c < K; ++c) sum += Wm[i * K + c] * S[c * V + j];
            Vnew[i * V + j] = put(Intermediate::V_new, sum);
          }
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t j = 0; j < V; ++j) {
            double sum = 0;
            for (std::int64_t c = 0; c < K; ++c)
              sum +=
                  put(Intermediate::gated_q, p.scale * at(r, i, c) * std::exp(G[i * K + c])) * S[c * V + j];
            for (std::int64_t m = 0; m <= i; ++m)
              sum += Aqk[i * L + m] * v[row(t0 + m) * V + j] + Aqb[i * L + m] * Vnew[m * V + j];
            o[row(t0 + i) * V + j] = sum;
          }
        for (std::int64_t c = 0; c < K; ++c) {
          const double end = G[(L - 1) * K + c];
          for (std::int64_t j = 0; j < V; ++j) {
            double sum = std::exp(end) * S[c * V + j];
            for (std::int64_t m = 0; m < L; ++m) {
              const double decay = std::exp(end - G[m * K + c]);
              sum += put(Intermediate::gated_k, at(k, m, c) * decay) * v[row(t0 + m) * V + j] +
                     put(Intermediate::gated_b, at(b, m, c) * decay) * Vnew[m * V + j];
            }
            S[c * V + j] = put(Intermediate::state, sum);
          }
        }
      }
      for (std::int64_t e = 0; e < K * V; ++e) ht[(bb * p.H + h) * K * V + e] = S[e];
    }
}

}  // namespace flabench::testing
