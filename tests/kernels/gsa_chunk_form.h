// gsa in chunk form on the host, forward and backward, with the decay numerics of tests/kernels/chunk_form.h:
// per chunk of C tokens, the slot decays F summed within 16-token sub-chunks and every exponent composed from
// those sums (each factor <= 1). Per query head g of key/value head h, with chunk-start states Hk0, Hv0:
//   logits[i][m] = scale (e^{F_i,m} (Hk0^T q_i)_m + sum_{j <= i} (q_i . k_j) s_j,m e^{F_i,m - F_j,m})
//   p_i = softmax over the slots of logits[i]
//   o_i = sum_m p_i,m e^{F_i,m} Hv0[m] + sum_{j <= i} (sum_m p_i,m s_j,m e^{F_i,m - F_j,m}) v_j
// The backward goes by chunks in reverse: pass 2's gradients, the softmax's, pass 1's, and
//   df_t = sum_{i >= t} (dz_i . z_i + p_i . dp_i) - sum_{j >= t} s_j . ds_j + the end states' H . dH (per
//   slot).
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

// Both states over one chunk, decayed to its last token: H <- e^{whole} H + sum_j e^{to_end(j)} s_j (k_j |
// v_j).
template <class Real>
void gsa_advance(const Problem& p, const Arrays64& in, const ChunkDecays<Real>& d, std::int64_t b,
                 std::int64_t h, std::int64_t t0, std::int64_t L, std::vector<Real>& Hk,
                 std::vector<Real>& Hv) {
  const std::int64_t K = p.K, V = p.V, M = p.M;
  const auto &k = in.at("k").values, &v = in.at("v").values, &s = in.at("s").values;
  const auto row = [&](std::int64_t t) { return (b * p.T + t) * p.H + h; };
  for (std::int64_t m = 0; m < M; ++m) {
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

template <class Real>
ChunkDecays<Real> gsa_decays(const Problem& p, const Arrays64& in, std::int64_t b, std::int64_t h,
                             std::int64_t t0, std::int64_t L) {
  const auto& f = in.at("f").values;
  return ChunkDecays<Real>(L, p.M, false, [&](std::int64_t i, std::int64_t m) {
    return Real(f[((b * p.T + t0 + i) * p.H + h) * p.M + m]);
  });
}

template <class Real>
void gsa_chunk_forward(const Problem& p, int C, const Arrays64& in, Arrays64& out,
                       Factorisation factorisation = Factorisation::sub_chunk_reference) {
  const std::int64_t K = p.K, V = p.V, M = p.M, G = p.G, HQ = p.H * p.G;
  const auto &q = in.at("q").values, &k = in.at("k").values, &v = in.at("v").values, &s = in.at("s").values;
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
        const ChunkDecays<Real> d = gsa_decays<Real>(p, in, b, h, t0, L);
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
        gsa_advance(p, in, d, b, h, t0, L, Hk, Hv);
      }
      for (std::int64_t e = 0; e < K * M; ++e)
        out.at("hkt").values[(b * p.H + h) * K * M + e] = double(Hk[e]);
      for (std::int64_t e = 0; e < M * V; ++e)
        out.at("hvt").values[(b * p.H + h) * M * V + e] = double(Hv[e]);
    }
}

// Gradients of q, k, v, s, f and both initial states, given do, dhkt and dhvt, into `grads` ("d" + input).
template <class Real>
void gsa_chunk_backward(const Problem& p, const Arrays64& in, const Arrays64& grad_out, Arrays64& grads,
                        int C) {
  const std::int64_t K = p.K, V = p.V, M = p.M, G = p.G, HQ = p.H * p.G;
  const auto &q = in.at("q").values, &k = in.at("k").values, &v = in.at("v").values, &s = in.at("s").values;
  const auto& d_o = grad_out.at("do").values;
  const Real scale = Real(p.scale);
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto row = [&](std::int64_t t) { return (b * p.T + t) * p.H + h; };
      const auto query = [&](std::int64_t t, std::int64_t g) { return ((b * p.T + t) * HQ + h * G + g); };
      // the states before every chunk, and after the last
      std::vector<std::vector<Real>> Hks{std::vector<Real>(K * M)}, Hvs{std::vector<Real>(M * V)};
      for (std::int64_t e = 0; e < K * M; ++e)
        Hks[0][e] = Real(in.at("hk0").values[(b * p.H + h) * K * M + e]);
      for (std::int64_t e = 0; e < M * V; ++e)
        Hvs[0][e] = Real(in.at("hv0").values[(b * p.H + h) * M * V + e]);
      for (std::int64_t t0 = 0; t0 < p.T; t0 += C) {
        const std::int64_t L = std::min<std::int64_t>(C, p.T - t0);
        Hks.push_back(Hks.back()), Hvs.push_back(Hvs.back());
        gsa_advance(p, in, gsa_decays<Real>(p, in, b, h, t0, L), b, h, t0, L, Hks.back(), Hvs.back());
      }
      std::vector<Real> dHk(K * M), dHv(M * V);  // dL / d(states after the chunk)
      for (std::int64_t e = 0; e < K * M; ++e)
        dHk[e] = Real(grad_out.at("dhkt").values[(b * p.H + h) * K * M + e]);
      for (std::int64_t e = 0; e < M * V; ++e)
        dHv[e] = Real(grad_out.at("dhvt").values[(b * p.H + h) * M * V + e]);
      const std::int64_t chunks = (p.T + C - 1) / C;
      for (std::int64_t n = chunks - 1; n >= 0; --n) {
        const std::int64_t t0 = n * C, L = std::min<std::int64_t>(C, p.T - t0);
        const ChunkDecays<Real> d = gsa_decays<Real>(p, in, b, h, t0, L);
        const std::vector<Real>&Hk0 = Hks[n], &Hv0 = Hvs[n], &Hk1 = Hks[n + 1], &Hv1 = Hvs[n + 1];
        const auto decay = [&](std::int64_t i, std::int64_t j, std::int64_t m) {
          const auto [left, right] = d.factors(i, j, m, Factorisation::sub_chunk_reference);
          return left * right;
        };
        const auto K_ = [&](std::int64_t j, std::int64_t c) { return Real(k[row(t0 + j) * K + c]); };
        const auto V_ = [&](std::int64_t j, std::int64_t c) { return Real(v[row(t0 + j) * V + c]); };
        const auto S_ = [&](std::int64_t j, std::int64_t m) { return Real(s[row(t0 + j) * M + m]); };
        std::vector<Real> dk(L * K, 0), dv(L * V, 0), ds(L * M, 0),
            seen_by(L * M, 0);  // seen_by: dz.z + p.dp
        std::vector<Real> dHk0(K * M, 0), dHv0(M * V, 0);
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t g = 0; g < G; ++g) {
            const std::int64_t qi = query(t0 + i, g);
            const auto Q = [&](std::int64_t c) { return Real(q[qi * K + c]); };
            const auto DO = [&](std::int64_t c) { return Real(d_o[qi * V + c]); };
            std::vector<Real> qk(i + 1, 0), vdo(i + 1, 0);
            for (std::int64_t j = 0; j <= i; ++j) {
              for (std::int64_t c = 0; c < K; ++c) qk[j] += Q(c) * K_(j, c);
              for (std::int64_t c = 0; c < V; ++c) vdo[j] += V_(j, c) * DO(c);
            }
            std::vector<Real> z(M, 0), pr(M), dp(M, 0), dz(M);
            for (std::int64_t m = 0; m < M; ++m) {
              Real from_state = 0, hv_do = 0;
              for (std::int64_t c = 0; c < K; ++c) from_state += Hk0[c * M + m] * Q(c);
              for (std::int64_t c = 0; c < V; ++c) hv_do += Hv0[m * V + c] * DO(c);
              const Real seen = std::exp(d.seen(i, m));
              z[m] = from_state * seen, dp[m] = hv_do * seen;
              for (std::int64_t j = 0; j <= i; ++j) {
                const Real e = decay(i, j, m) * S_(j, m);
                z[m] += qk[j] * e, dp[m] += vdo[j] * e;
              }
              z[m] *= scale;
            }
            Real largest = -INFINITY, total = 0, weighted = 0;
            for (Real x : z) largest = std::max(largest, x);
            for (std::int64_t m = 0; m < M; ++m) total += (pr[m] = std::exp(z[m] - largest));
            for (std::int64_t m = 0; m < M; ++m) pr[m] /= total, weighted += pr[m] * dp[m];
            for (std::int64_t m = 0; m < M; ++m) {
              dz[m] = pr[m] * (dp[m] - weighted);
              seen_by[i * M + m] += dz[m] * z[m] + pr[m] * dp[m];
            }
            std::vector<Real> dq(K, 0);
            for (std::int64_t m = 0; m < M; ++m) {
              const Real seen = std::exp(d.seen(i, m));
              for (std::int64_t c = 0; c < K; ++c) {
                dq[c] += scale * dz[m] * seen * Hk0[c * M + m];
                dHk0[c * M + m] += scale * dz[m] * seen * Q(c);
              }
              for (std::int64_t c = 0; c < V; ++c) dHv0[m * V + c] += pr[m] * seen * DO(c);
            }
            for (std::int64_t j = 0; j <= i; ++j) {
              Real through_z = 0, through_p = 0;  // sum_m dz_m s_jm e^{..} and sum_m p_m s_jm e^{..}
              for (std::int64_t m = 0; m < M; ++m) {
                const Real e = decay(i, j, m);
                through_z += dz[m] * S_(j, m) * e, through_p += pr[m] * S_(j, m) * e;
                ds[j * M + m] += pr[m] * e * vdo[j] + scale * dz[m] * qk[j] * e;
              }
              for (std::int64_t c = 0; c < K; ++c) {
                dq[c] += scale * through_z * K_(j, c);
                dk[j * K + c] += scale * through_z * Q(c);
              }
              for (std::int64_t c = 0; c < V; ++c) dv[j * V + c] += through_p * DO(c);
            }
            for (std::int64_t c = 0; c < K; ++c) grads.at("dq").values[qi * K + c] = double(dq[c]);
          }
        // the states handed on, and df
        std::vector<Real> end(M, 0);
        for (std::int64_t m = 0; m < M; ++m) {
          const Real whole = std::exp(d.whole(m));
          for (std::int64_t c = 0; c < K; ++c) {
            end[m] += Hk1[c * M + m] * dHk[c * M + m];
            dHk0[c * M + m] += whole * dHk[c * M + m];
          }
          for (std::int64_t c = 0; c < V; ++c) {
            end[m] += Hv1[m * V + c] * dHv[m * V + c];
            dHv0[m * V + c] += whole * dHv[m * V + c];
          }
          for (std::int64_t j = 0; j < L; ++j) {
            const Real e = std::exp(d.to_end(j, m));
            Real k_dhk = 0, v_dhv = 0;
            for (std::int64_t c = 0; c < K; ++c) {
              k_dhk += K_(j, c) * dHk[c * M + m];
              dk[j * K + c] += e * S_(j, m) * dHk[c * M + m];
            }
            for (std::int64_t c = 0; c < V; ++c) {
              v_dhv += V_(j, c) * dHv[m * V + c];
              dv[j * V + c] += e * S_(j, m) * dHv[m * V + c];
            }
            ds[j * M + m] += e * (k_dhk + v_dhv);
          }
        }
        for (std::int64_t m = 0; m < M;
             ++m) {  // one reverse sum of the per-token differences, which cancel less
          Real sum = end[m];
          for (std::int64_t t = L - 1; t >= 0; --t) {
            sum += seen_by[t * M + m] - S_(t, m) * ds[t * M + m];
            grads.at("df").values[row(t0 + t) * M + m] = double(sum);
          }
        }
        for (std::int64_t j = 0; j < L; ++j) {
          for (std::int64_t c = 0; c < K; ++c)
            grads.at("dk").values[row(t0 + j) * K + c] = double(dk[j * K + c]);
          for (std::int64_t c = 0; c < V; ++c)
            grads.at("dv").values[row(t0 + j) * V + c] = double(dv[j * V + c]);
          for (std::int64_t m = 0; m < M; ++m)
            grads.at("ds").values[row(t0 + j) * M + m] = double(ds[j * M + m]);
        }
        dHk = std::move(dHk0), dHv = std::move(dHv0);
      }
      for (std::int64_t e = 0; e < K * M; ++e)
        grads.at("dhk0").values[(b * p.H + h) * K * M + e] = double(dHk[e]);
      for (std::int64_t e = 0; e < M * V; ++e)
        grads.at("dhv0").values[(b * p.H + h) * M * V + e] = double(dHv[e]);
    }
}

}  // namespace flabench::testing
