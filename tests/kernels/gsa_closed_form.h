// gsa's forward in closed form, for checking its fp64 reference another way: with F_t = f_0 + ... + f_t per
// slot,
//   Hk_t[k][m] = exp(F_t[m]) hk0[k][m] + sum_{s <= t} exp(F_t[m] - F_s[m]) k_s[k] s_s[m]
//   Hv_t[m][v] = exp(F_t[m]) hv0[m][v] + sum_{s <= t} exp(F_t[m] - F_s[m]) s_s[m] v_s[v]
//   o_t = Hv_t^T softmax(scale Hk_t^T q_t)     (per query head; head hq reads key/value head hq / G)
#pragma once

#include <algorithm>
#include <cmath>

#include "tests/test_support.h"

namespace flabench::testing {

inline Arrays64 closed_form_gsa(const OpSpec& op, const Problem& p, const Arrays64& in) {
  Arrays64 out = zero_arrays(op.outputs, p);
  const std::int64_t HQ = p.H * p.G;
  auto token = [&](const char* name, std::int64_t b, std::int64_t t, std::int64_t heads, std::int64_t head,
                   std::int64_t width,
                   std::int64_t i) { return in.at(name).values[((b * p.T + t) * heads + head) * width + i]; };
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h)
      for (std::int64_t t = 0; t < p.T; ++t) {
        std::vector<double> F_t(p.M, 0.0);
        for (std::int64_t r = 0; r <= t; ++r)
          for (std::int64_t m = 0; m < p.M; ++m) F_t[m] += token("f", b, r, p.H, h, p.M, m);
        std::vector<double> Hk(p.K * p.M), Hv(p.M * p.V);
        for (std::int64_t m = 0; m < p.M; ++m) {
          for (std::int64_t k = 0; k < p.K; ++k)
            Hk[k * p.M + m] = std::exp(F_t[m]) * in.at("hk0").values[((b * p.H + h) * p.K + k) * p.M + m];
          for (std::int64_t v = 0; v < p.V; ++v)
            Hv[m * p.V + v] = std::exp(F_t[m]) * in.at("hv0").values[((b * p.H + h) * p.M + m) * p.V + v];
        }
        std::vector<double> F_s(p.M, 0.0);
        for (std::int64_t s = 0; s <= t; ++s)
          for (std::int64_t m = 0; m < p.M; ++m) {
            F_s[m] += token("f", b, s, p.H, h, p.M, m);
            const double decay = std::exp(F_t[m] - F_s[m]), slot = token("s", b, s, p.H, h, p.M, m);
            for (std::int64_t k = 0; k < p.K; ++k)
              Hk[k * p.M + m] += decay * token("k", b, s, p.H, h, p.K, k) * slot;
            for (std::int64_t v = 0; v < p.V; ++v)
              Hv[m * p.V + v] += decay * slot * token("v", b, s, p.H, h, p.V, v);
          }
        for (std::int64_t g = 0; g < p.G; ++g) {
          const std::int64_t hq = h * p.G + g;
          std::vector<double> logits(p.M, 0.0);
          for (std::int64_t m = 0; m < p.M; ++m)
            for (std::int64_t k = 0; k < p.K; ++k)
              logits[m] += p.scale * Hk[k * p.M + m] * token("q", b, t, HQ, hq, p.K, k);
          double total = 0;
          for (double& l : logits) total += (l = std::exp(l));
          for (std::int64_t v = 0; v < p.V; ++v) {
            double o = 0;
            for (std::int64_t m = 0; m < p.M; ++m) o += Hv[m * p.V + v] * logits[m] / total;
            out.at("o").values[((b * p.T + t) * HQ + hq) * p.V + v] = o;
          }
        }
        if (t == p.T - 1) {
          std::copy(Hk.begin(), Hk.end(), out.at("hkt").values.begin() + (b * p.H + h) * p.K * p.M);
          std::copy(Hv.begin(), Hv.end(), out.at("hvt").values.begin() + (b * p.H + h) * p.M * p.V);
        }
      }
  return out;
}

}  // namespace flabench::testing
