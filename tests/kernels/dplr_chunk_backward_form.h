// rwkv7's backward in chunk form on the host: the design a chunked CUDA backward (issue 5) would follow,
// checked against backpropagation through the recurrence, with each backward intermediate's storage
// precision a parameter (tests/kernels/dplr_chunk_backward_test.cpp measures which need fp32). Arithmetic is
// fp64. Per chunk, with the forward's intermediates (dplr_chunk_form.h) and S the state at its start:
//   O = (q ⊙ e^Γ) S + A_qk V + A_qb V_new,   V_new = U + W S,   U = X A_ak V,   W = X (a ⊙ e^Γe)
//   S_end = e^{Γ_L} S + k~^T V + b~^T V_new   (k~ = k ⊙ e^{Γ_L - Γ}, b~ likewise)
// so with dO the chunk's output gradient and dS_end the gradient of S_end from the chunks after it, a scan
// over the chunks in reverse (the forward's state pass, transposed) carries
//   dV_new = A_qb^T dO + b~ dS_end,   dS = e^{Γ_L} dS_end + (q ⊙ e^Γ)^T dO + W^T dV_new
// and every input's gradient is then local to its chunk: dA_qk = dO V^T, dA_qb = dO V_new^T (lower
// triangles), dW = dV_new S^T, dX = dW (a ⊙ e^Γe)^T + dV_new (A_ak V)^T, dA_ab = X^T dX X^T and
// dA_ak = (X^T dV_new) V^T (strictly lower), each pair matrix's gradient going to its row and column inputs
// and, by the exponent e^{Γ_i - Γ_j} (or e^{Γe_i - Γ_j}) of each pair, to the cumulative log decays;
// dw_m = sum over i >= m of dΓ_i plus over i > m of dΓe_i.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/kernels/dplr_chunk_form.h"

namespace flabench::testing {

// dr, dw, dk, dv, da, db and dh0 of rwkv7 in chunk form, from the incoming do and dht; the forward's
// intermediates recomputed and the backward's stored as `plan` says.
inline void dplr_chunk_backward(const Problem& p, int C, const Arrays64& in, const Arrays64& grad_out,
                                Arrays64& grads, const StoragePlan& plan = {}) {
  const std::int64_t K = p.K, V = p.V;
  const auto &r = in.at("r").values, &k = in.at("k").values, &v = in.at("v").values, &a = in.at("a").values,
             &b = in.at("b").values;
  const auto &dout = grad_out.at("do").values, &dht = grad_out.at("dht").values;
  auto &dr = grads.at("dr").values, &dw = grads.at("dw").values, &dk = grads.at("dk").values,
       &dv = grads.at("dv").values, &da = grads.at("da").values, &db = grads.at("db").values,
       &dh0 = grads.at("dh0").values;
  const auto put = [&](Intermediate what, double x) { return stored(plan, what, x); };
  for (std::int64_t bb = 0; bb < p.B; ++bb)
    for (std::int64_t h = 0; h < p.H; ++h) {
      // The forward's states at the chunks' starts (what the forward saves for the backward).
      std::vector<std::vector<double>> starts;
      dplr_chunk_scan(p, C, bb, h, in, plan,
                      [&](const ChunkView&, const DplrChunk&, const std::vector<double>& S,
                          const std::vector<double>&) { starts.push_back(S); });
      std::vector<double> dS(K * V);  // the gradient of the state after the current chunk
      for (std::int64_t e = 0; e < K * V; ++e) dS[e] = dht[(bb * p.H + h) * K * V + e];
      for (std::int64_t n = std::int64_t(starts.size()) - 1; n >= 0; --n) {
        const ChunkView x{p, bb, h, n * C};
        const std::int64_t L = std::min<std::int64_t>(C, p.T - n * C);
        const DplrChunk ch = dplr_chunk(x, L, in, plan);
        const std::vector<double>& S0 = starts[n];
        const std::vector<double> Vnew = dplr_chunk_vnew(ch, S0, K, V, plan);
        const auto dO = [&](std::int64_t i, std::int64_t j) { return dout[x.row(i) * V + j]; };
        const auto vv = [&](std::int64_t i, std::int64_t j) { return v[x.row(i) * V + j]; };
        const auto G = [&](std::int64_t i, std::int64_t c) { return ch.G[i * K + c]; };
        const auto Ge = [&](std::int64_t i, std::int64_t c) { return ch.Ge[i * K + c]; };
        const auto q = [&](std::int64_t i, std::int64_t c) { return p.scale * x.at(r, i, c); };
        const auto end = [&](std::int64_t c) { return G(L - 1, c); };

        // (A^T dO)[m][j] + (y~ dS_end)[m][j], y~ = y e^{Γ_L - Γ}: a value row's gradient through the outputs
        // (A = A_qk for v, A_qb for V_new) and through the state at the chunk's end (y = k, b).
        const auto outputs_and_end = [&](const std::vector<double>& A, const std::vector<double>& y,
                                         std::int64_t m, std::int64_t j) {
          double sum = 0;
          for (std::int64_t i = m; i < L; ++i) sum += A[i * L + m] * dO(i, j);
          for (std::int64_t c = 0; c < K; ++c)
            sum += x.at(y, m, c) * std::exp(end(c) - G(m, c)) * dS[c * V + j];
          return sum;
        };
        // The reverse scan's step: dV_new, then the gradient of the state at the chunk's start.
        std::vector<double> dVnew(L * V), dS0(K * V);
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t j = 0; j < V; ++j)
            dVnew[i * V + j] = put(Intermediate::dV_new, outputs_and_end(ch.Aqb, b, i, j));
        for (std::int64_t c = 0; c < K; ++c)
          for (std::int64_t j = 0; j < V; ++j) {
            double sum = std::exp(end(c)) * dS[c * V + j];
            for (std::int64_t i = 0; i < L; ++i)
              sum += q(i, c) * std::exp(G(i, c)) * dO(i, j) + ch.W[i * K + c] * dVnew[i * V + j];
            dS0[c * V + j] = put(Intermediate::dstate, sum);
          }

        // The pair matrices' gradients (lower triangles; A_ak's and A_ab's strictly).
        std::vector<double> dAqk(L * L, 0), dAqb(L * L, 0), dAak(L * L, 0), dAab(L * L, 0), dW(L * K),
            dAkV(L * V, 0), dX(L * L, 0);
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t m = 0; m <= i; ++m) {
            double qk = 0, qb = 0;
            for (std::int64_t j = 0; j < V; ++j) qk += dO(i, j) * vv(m, j), qb += dO(i, j) * Vnew[m * V + j];
            dAqk[i * L + m] = put(Intermediate::dA_qk, qk);
            dAqb[i * L + m] = put(Intermediate::dA_qb, qb);
          }
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t c = 0; c < K; ++c) {
            double sum = 0;
            for (std::int64_t j = 0; j < V; ++j) sum += dVnew[i * V + j] * S0[c * V + j];
            dW[i * K + c] = put(Intermediate::dW, sum);
          }
        for (std::int64_t m = 0; m < L; ++m)  // U = X (A_ak V): the gradient of A_ak V is X^T dV_new
          for (std::int64_t j = 0; j < V; ++j)
            for (std::int64_t i = m; i < L; ++i) dAkV[m * V + j] += ch.inv[i * L + m] * dVnew[i * V + j];
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t m = 0; m <= i; ++m) {
            double sum = 0;
            for (std::int64_t c = 0; c < K; ++c) sum += dW[i * K + c] * x.at(a, m, c) * std::exp(Ge(m, c));
            for (std::int64_t j = 0; j < V; ++j) sum += dVnew[i * V + j] * ch.AkV[m * V + j];
            dX[i * L + m] = sum;
          }
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t m = 0; m < i; ++m) {
            double ab = 0, ak = 0;  // (X^T dX X^T)[i][m]: X unit lower, so rows s >= i, columns u <= m
            for (std::int64_t s = i; s < L; ++s)
              for (std::int64_t u = 0; u <= m; ++u)
                ab += ch.inv[s * L + i] * dX[s * L + u] * ch.inv[m * L + u];
            for (std::int64_t j = 0; j < V; ++j) ak += dAkV[i * V + j] * vv(m, j);
            dAab[i * L + m] = put(Intermediate::dA_ab, ab);
            dAak[i * L + m] = put(Intermediate::dA_ak, ak);
          }

        // Each input's gradient and the cumulative decays' (gG inclusive, gGe exclusive), per channel.
        for (std::int64_t c = 0; c < K; ++c) {
          std::vector<double> gG(L, 0), gGe(L, 0);
          double gEnd = 0;
          for (std::int64_t i = 0; i < L; ++i) {
            // q: o's (q e^Γ) S term and the pairs (i, m <= i) of A_qk and A_qb
            double dq = 0;
            for (std::int64_t j = 0; j < V; ++j) dq += dO(i, j) * S0[c * V + j];
            dq *= std::exp(G(i, c));
            // a: W = X (a e^Γe) and the pairs (i, m < i) of A_ak and A_ab
            double dag = 0;
            for (std::int64_t s = i; s < L; ++s) dag += ch.inv[s * L + i] * dW[s * K + c];
            double da_i = dag * std::exp(Ge(i, c));
            for (std::int64_t m = 0; m <= i; ++m) {
              const double inclusive = std::exp(G(i, c) - G(m, c));
              dq += (dAqk[i * L + m] * x.at(k, m, c) + dAqb[i * L + m] * x.at(b, m, c)) * inclusive;
              if (m < i)
                da_i += (dAak[i * L + m] * x.at(k, m, c) + dAab[i * L + m] * x.at(b, m, c)) *
                        std::exp(Ge(i, c) - G(m, c));
            }
            gG[i] += q(i, c) * dq, gGe[i] += x.at(a, i, c) * da_i;
            dr[x.row(i) * K + c] = p.scale * dq;
            da[x.row(i) * K + c] = da_i;
          }
          for (std::int64_t m = 0; m < L; ++m) {
            // k and b: the pairs (i >= m, m) as columns, and the state update's k~, b~
            const double to_end = std::exp(end(c) - G(m, c));
            double dk_state = 0, db_state = 0;
            for (std::int64_t j = 0; j < V; ++j)
              dk_state += vv(m, j) * dS[c * V + j], db_state += Vnew[m * V + j] * dS[c * V + j];
            double dk_m = dk_state * to_end, db_m = db_state * to_end;
            for (std::int64_t i = m; i < L; ++i) {
              const double qi = q(i, c) * std::exp(G(i, c) - G(m, c));
              dk_m += dAqk[i * L + m] * qi, db_m += dAqb[i * L + m] * qi;
              if (i > m) {
                const double ai = x.at(a, i, c) * std::exp(Ge(i, c) - G(m, c));
                dk_m += dAak[i * L + m] * ai, db_m += dAab[i * L + m] * ai;
              }
            }
            const double moved = x.at(k, m, c) * dk_m + x.at(b, m, c) * db_m;
            gG[m] -= moved;
            gEnd += (x.at(k, m, c) * dk_state + x.at(b, m, c) * db_state) * to_end;
            dk[x.row(m) * K + c] = dk_m;
            db[x.row(m) * K + c] = db_m;
          }
          for (std::int64_t j = 0; j < V; ++j) gEnd += std::exp(end(c)) * S0[c * V + j] * dS[c * V + j];
          gG[L - 1] += gEnd;
          double inclusive = 0, exclusive = 0;  // dw_m: every Γ_i with i >= m, every Γe_i with i > m
          for (std::int64_t m = L - 1; m >= 0; --m) {
            inclusive += gG[m];
            dw[x.row(m) * K + c] = inclusive + exclusive;
            exclusive += gGe[m];
          }
        }
        for (std::int64_t m = 0; m < L; ++m)
          for (std::int64_t j = 0; j < V; ++j) {
            double sum = outputs_and_end(ch.Aqk, k, m, j);
            for (std::int64_t i = m + 1; i < L; ++i) sum += ch.Aak[i * L + m] * dAkV[i * V + j];
            dv[x.row(m) * V + j] = sum;
          }
        dS = dS0;
      }
      for (std::int64_t e = 0; e < K * V; ++e) dh0[(bb * p.H + h) * K * V + e] = dS[e];
    }
}

}  // namespace flabench::testing
