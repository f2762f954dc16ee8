// gsa's forward in chunk form on the host, with the decay numerics of tests/kernels/chunk_form.h: per chunk
// of C tokens, the slot decays F summed within 16-token sub-chunks and every exponent composed from those
// sums (each factor <= 1). Per query head g of key/value head h, with chunk-start states Hk0, Hv0:
//   logits[i][m] = scale (e^{F_i,m} (Hk0^T q_i)_m + sum_{j <= i} (q_i . k_j) s_j,m e^{F_i,m - F_j,m})
//   p_i = softmax over the slots of logits[i]
//   o_i = sum_m p_i,m e^{F_i,m} Hv0[m] + sum_{j <= i} (sum_m p_i,m s_j,m e^{F_i,m - F_j,m}) v_j
// The one-reference factorisation e^{F_i} e^{-F_j} is what turns into exp of a large positive number at steep
// forget gates (the NaN users hit in FLA's gsa backward, ops.md §6 and §10); the test shows it here too.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/common/problem.h"
#include "kernels/common/tensor.h"
#include "tests/kernels/chunk_form.h"

namespace flabench::testing {

template <class Real>
void gsa_chunk_forward(const Problem& p, int C, const Arrays64& in, Arrays64& out,
                       Factorisation factorisation = Factorisation::sub_chunk_reference) {
  const std::int64_t K = p.K, V = p.V, M = p.M, G = p.G, HQ = p.H * p.G;
  const auto &q = in.at("q").values, &k = in.at("k").values, &v = in.at("v").values, &s = in.at("s").values,
             &f = in.at("f").values;
  auto& o = out.at("o").values;
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto row = [&](std::int64_t t) { return (b * p.T + t) * p.H + h; };
      const auto query = [&](std::int64_t t, std::int64_t g) { return ((b * p.T + t) * HQ + h * G + g); };
      std::vector<Real> Hk(K * M), Hv(M * V);
      for (std::int64_t e = 0; e < K * M; ++e) Hk[e] = Real(in.at("hk0").values[(b * p.H + h) * K * M + e]);
      for (std::int64_t e = 0; e < M * V; ++e) Hv[e] = Real(in.at("hv0").values[(b * p.H + h) * M * V + e]);
      for (std::int64_t t0 = 0; t0 < p.T; t0 += C) {
        const std::int64_t L = std::min<std::int64_t>(C, p.T - t0);
        const ChunkDecays<Real> d(
            L, M, false, [&](std::int64_t i, std::int64_t m) { return Real(f[row(t0 + i) * M + m]); });
        const auto decay = [&](std::int64_t i, std::int64_t j, std::int64_t m) {
          const auto [left, right] = d.factors(i, j, m, factorisation);
          return left * right;
        };
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t g = 0; g < G; ++g) {
            const std::int64_t qi = query(t0 + i, g);
            std::vector<Real> logit(M, 0);
            for (std::int64_t m = 0; m < M; ++m) {
              Real from_state = 0;
              for (std::int64_t c = 0; c < K; ++c) from_state += Hk[c * M + m] * Real(q[qi * K + c]);
              logit[m] = from_state * std::exp(d.seen(i, m));
            }
            for (std::int64_t j = 0; j <= i; ++j) {
              Real qk = 0;
              for (std::int64_t c = 0; c < K; ++c) qk += Real(q[qi * K + c]) * Real(k[row(t0 + j) * K + c]);
              for (std::int64_t m = 0; m < M; ++m)
                logit[m] += qk * Real(s[row(t0 + j) * M + m]) * decay(i, j, m);
            }
            Real largest = -INFINITY, total = 0;
            for (Real& x : logit) largest = std::max(largest, x *= Real(p.scale));
            for (Real& x : logit) total += (x = std::exp(x - largest));
            std::vector<Real> acc(V, 0);
            for (std::int64_t m = 0; m < M; ++m) {
              const Real weight = logit[m] / total * std::exp(d.seen(i, m));
              for (std::int64_t j = 0; j < V; ++j) acc[j] += weight * Hv[m * V + j];
            }
            for (std::int64_t j = 0; j <= i; ++j) {
              Real a = 0;
              for (std::int64_t m = 0; m < M; ++m)
                a += logit[m] / total * Real(s[row(t0 + j) * M + m]) * decay(i, j, m);
              for (std::int64_t c = 0; c < V; ++c) acc[c] += a * Real(v[row(t0 + j) * V + c]);
            }
            for (std::int64_t c = 0; c < V; ++c) o[qi * V + c] = double(acc[c]);
          }
        for (std::int64_t m = 0; m < M; ++m) {  // both states, decayed to the chunk's last token
          const Real whole = std::exp(d.whole(m));
          for (std::int64_t c = 0; c < K; ++c) Hk[c * M + m] *= whole;
          for (std::int64_t c = 0; c < V; ++c) Hv[m * V + c] *= whole;
          for (std::int64_t j = 0; j < L; ++j) {
            const Real weight = Real(s[row(t0 + j) * M + m]) * std::exp(d.to_end(j, m));
            for (std::int64_t c = 0; c < K; ++c) Hk[c * M + m] += weight * Real(k[row(t0 + j) * K + c]);
            for (std::int64_t c = 0; c < V; ++c) Hv[m * V + c] += weight * Real(v[row(t0 + j) * V + c]);
          }
        }
      }
      for (std::int64_t e = 0; e < K * M; ++e)
        out.at("hkt").values[(b * p.H + h) * K * M + e] = double(Hk[e]);
      for (std::int64_t e = 0; e < M * V; ++e)
        out.at("hvt").values[(b * p.H + h) * M * V + e] = double(Hv[e]);
    }
}

}  // namespace flabench::testing
