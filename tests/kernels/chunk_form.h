// The chunkwise-parallel form of the gated recurrences without a low-rank term (gla, simple_gla, rwkv6), on
// the host, with the numerics the chunk CUDA kernels are to follow (kernels/notes/chunk.md): per chunk of C
// tokens, inclusive cumulative log decays G; the intra-chunk matrix A as a product of two scaled operands,
// (q_i e^{Gq_i - ref}) . (k_j e^{ref - G_j}), with ref the decay at the first row of i's 16-token sub-chunk
// so both factors are <= 1 (the diagonal sub-block takes e^{Gq_i - G_j} directly); the state carried from
// chunk to chunk. Real = float emulates the kernels' fp32 arithmetic. chunk_form_test.cpp holds it to the
// fp64 recurrence, and shows what the one-reference factorisation e^{Gq_i} . e^{-G_j} does at steep decay.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/common/problem.h"
#include "kernels/common/recurrence.h"
#include "kernels/common/tensor.h"

namespace flabench::testing {

constexpr int kSubChunk = 16;

// How the intra-chunk decay e^{Gq_i - G_j} is factorised into an i factor and a j factor.
enum class Factorisation {
  sub_chunk_reference,  // the reference row of i's sub-chunk: both factors <= 1 (the kernels' plan)
  chunk_start,          // e^{Gq_i} and e^{-G_j}: the second factor grows without bound at steep decay
};

template <class Real>
void chunk_forward(const RecurrenceBinding& r, const Problem& p, int C, const Arrays64& in, Arrays64& out,
                   Factorisation factorisation = Factorisation::sub_chunk_reference) {
  const RecurrenceForm& form = r.form;
  const std::int64_t K = p.K, V = p.V;
  const auto& q = in.at(r.q).values;
  const auto& k = in.at(r.k).values;
  const auto& v = in.at(r.v).values;
  const auto& g = in.at(r.g).values;
  const auto& h0 = in.at(r.h0).values;
  auto& o = out.at(r.o).values;
  auto& ht = out.at(r.ht).values;
  const Real scale = Real(p.scale);

  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto row = [&](std::int64_t t) { return (b * p.T + t) * p.H + h; };
      const auto gate = [&](std::int64_t t, std::int64_t c) {
        return Real(form.gate == GateKind::per_key ? g[row(t) * K + c] : g[row(t)]);
      };
      std::vector<Real> S(K * V);
      for (std::int64_t e = 0; e < K * V; ++e) S[e] = Real(h0[(b * p.H + h) * K * V + e]);

      for (std::int64_t t0 = 0; t0 < p.T; t0 += C) {
        const std::int64_t L = std::min<std::int64_t>(C, p.T - t0);
        // G[i][c]: inclusive cumulative log decay over the chunk; Gq[i][c]: what token i's output sees of it
        // (inclusive, or exclusive when the output reads the state before the update).
        std::vector<Real> G(L * K), Gq(L * K);
        for (std::int64_t c = 0; c < K; ++c) {
          Real sum = 0;
          for (std::int64_t i = 0; i < L; ++i) {
            const Real before = sum;
            sum += gate(t0 + i, c);
            G[i * K + c] = sum;
            Gq[i * K + c] = form.output_before_update ? before : sum;
          }
        }
        for (std::int64_t i = 0; i < L; ++i) {
          const std::int64_t ti = row(t0 + i);
          std::vector<Real> acc(V, 0);
          for (std::int64_t c = 0; c < K; ++c) {  // from the state the chunk started with
            const Real qc = Real(q[ti * K + c]) * std::exp(Gq[i * K + c]);
            for (std::int64_t j = 0; j < V; ++j) acc[j] += qc * S[c * V + j];
          }
          const std::int64_t n = i / kSubChunk * kSubChunk;  // the reference row
          const std::int64_t last = form.output_before_update ? i - 1 : i;
          for (std::int64_t s = 0; s <= last; ++s) {  // the chunk's own tokens
            const std::int64_t ts = row(t0 + s);
            Real a = 0;
            for (std::int64_t c = 0; c < K; ++c) {
              Real left, right;
              if (factorisation == Factorisation::chunk_start) {
                left = std::exp(Gq[i * K + c]), right = std::exp(-G[s * K + c]);
              } else if (s / kSubChunk == i / kSubChunk) {
                left = std::exp(Gq[i * K + c] - G[s * K + c]), right = 1;
              } else {
                left = std::exp(Gq[i * K + c] - Gq[n * K + c]),
                right = std::exp(Gq[n * K + c] - G[s * K + c]);
              }
              a += (Real(q[ti * K + c]) * left) * (Real(k[ts * K + c]) * right);
            }
            for (std::int64_t j = 0; j < V; ++j) acc[j] += a * Real(v[ts * V + j]);
          }
          if (form.bonus) {  // rwkv6: the current token through u, outside A
            Real weight = 0;
            for (std::int64_t c = 0; c < K; ++c)
              weight += Real(q[ti * K + c]) * Real(in.at(r.u).values[h * K + c]) * Real(k[ti * K + c]);
            for (std::int64_t j = 0; j < V; ++j) acc[j] += weight * Real(v[ti * V + j]);
          }
          for (std::int64_t j = 0; j < V; ++j) o[ti * V + j] = double(scale * acc[j]);
        }
        // The state after the chunk: every term decayed to its last token.
        for (std::int64_t c = 0; c < K; ++c) {
          const Real end = G[(L - 1) * K + c];
          for (std::int64_t j = 0; j < V; ++j) S[c * V + j] *= std::exp(end);
          for (std::int64_t s = 0; s < L; ++s) {
            const std::int64_t ts = row(t0 + s);
            const Real weight = Real(k[ts * K + c]) * std::exp(end - G[s * K + c]);
            for (std::int64_t j = 0; j < V; ++j) S[c * V + j] += weight * Real(v[ts * V + j]);
          }
        }
      }
      for (std::int64_t e = 0; e < K * V; ++e) ht[(b * p.H + h) * K * V + e] = double(S[e]);
    }
}

}  // namespace flabench::testing
