// The chunkwise-parallel form of the gated recurrences without a low-rank term (gla, simple_gla, rwkv6), on
// the host, with the numerics the chunk CUDA kernels are to follow (kernels/notes/chunk.md): per chunk of C
// tokens, log decays summed within 16-token sub-chunks (never the difference of two large cumulative sums);
// the intra-chunk matrix A as a product of two scaled operands, (q_i e^{decay since i's sub-chunk start}) .
// (k_j e^{decay from j to that start}), both factors <= 1 (the diagonal sub-block takes one small exponent);
// the state carried from chunk to chunk; the backward by chunks in reverse with the state gradient carried
// back, dg as the reverse cumulative sum of q.dq - k.dk plus the state term. Real = float emulates the
// kernels' fp32 arithmetic. chunk_form_test.cpp holds it to the fp64 recurrence, and shows what the
// one-reference factorisation e^{Gq_i} . e^{-G_j} does at steep decay.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/common/problem.h"
#include "kernels/common/recurrence.h"
#include "kernels/common/tensor.h"

namespace flabench::testing {

constexpr int kSubChunk = 16;

// How the forward factorises the intra-chunk decay e^{Gq_i - G_j} into an i factor and a j factor.
enum class Factorisation {
  sub_chunk_reference,  // through the start of i's sub-chunk: both factors <= 1 (the kernels' plan)
  chunk_start,          // e^{Gq_i} and e^{-G_j}: the second factor grows without bound at steep decay
};

// The log decays of one chunk of L tokens and K channels, as sub-chunk sums: local[i] sums the gates of i's
// sub-chunk up to and including i, localq[i] what token i's output sees of them (up to i, or before i when
// the output reads the state before the update), total[J] a sub-chunk's sum, prefix[J] the sub-chunks' before
// J. Every exponent below is composed from these pieces, so none is the difference of two large numbers.
template <class Real>
struct ChunkDecays {
  std::int64_t L, K, subs;
  std::vector<Real> local, localq, total, prefix;

  template <class Gate>
  ChunkDecays(std::int64_t L_, std::int64_t K_, bool output_before_update, const Gate& gate)
      : L(L_),
        K(K_),
        subs((L_ + kSubChunk - 1) / kSubChunk),
        local(L_ * K_),
        localq(L_ * K_),
        total(subs * K_),
        prefix((subs + 1) * K_) {
    for (std::int64_t c = 0; c < K; ++c)
      for (std::int64_t J = 0; J < subs; ++J) {
        Real sum = 0;
        for (std::int64_t i = J * kSubChunk; i < std::min<std::int64_t>(L, (J + 1) * kSubChunk); ++i) {
          const Real before = sum;
          sum += gate(i, c);
          local[i * K + c] = sum;
          localq[i * K + c] = output_before_update ? before : sum;
        }
        total[J * K + c] = sum;
        prefix[(J + 1) * K + c] = prefix[J * K + c] + sum;
      }
  }
  // From token s (after it) to the end of sub-chunk upto - 1.
  Real after(std::int64_t s, std::int64_t upto, std::int64_t c) const {
    Real sum = total[(s / kSubChunk) * K + c] - local[s * K + c];
    for (std::int64_t M = s / kSubChunk + 1; M < upto; ++M) sum += total[M * K + c];
    return sum;
  }
  Real seen(std::int64_t i, std::int64_t c) const {
    return prefix[(i / kSubChunk) * K + c] + localq[i * K + c];
  }
  Real to_end(std::int64_t s, std::int64_t c) const { return after(s, subs, c); }
  Real whole(std::int64_t c) const { return prefix[subs * K + c]; }
  // Gq_i - G_s for s before (or at) i, as the factors (left for i, right for s) the tensor cores would take.
  std::pair<Real, Real> factors(std::int64_t i, std::int64_t s, std::int64_t c, Factorisation f) const {
    if (f == Factorisation::chunk_start)
      return {std::exp(seen(i, c)), std::exp(-(prefix[(s / kSubChunk) * K + c] + local[s * K + c]))};
    if (s / kSubChunk == i / kSubChunk) return {std::exp(localq[i * K + c] - local[s * K + c]), Real(1)};
    return {std::exp(localq[i * K + c]), std::exp(after(s, i / kSubChunk, c))};
  }
};

// One op's tensors by role, and the per-(batch, head) views the chunk loops use.
struct ChunkTensors {
  const RecurrenceBinding& r;
  const Problem& p;
  const Arrays64& in;

  std::int64_t row(std::int64_t b, std::int64_t h, std::int64_t t) const { return (b * p.T + t) * p.H + h; }
  double gate(std::int64_t row, std::int64_t c) const {
    const auto& g = in.at(r.g).values;
    return r.form.gate == GateKind::per_key ? g[row * p.K + c] : g[row];
  }
  const std::vector<double>& operator()(const std::string& name) const { return in.at(name).values; }
};

template <class Real>
ChunkDecays<Real> chunk_decays(const ChunkTensors& x, std::int64_t b, std::int64_t h, std::int64_t t0,
                               std::int64_t L) {
  return ChunkDecays<Real>(L, x.p.K, x.r.form.output_before_update, [&](std::int64_t i, std::int64_t c) {
    return Real(x.gate(x.row(b, h, t0 + i), c));
  });
}

// Runs the chunks of (b, h) forward: writes o (when `o` is set) and returns the state before every chunk,
// then the final state.
template <class Real>
std::vector<std::vector<Real>> chunk_states(const ChunkTensors& x, int C, std::int64_t b, std::int64_t h,
                                            std::vector<double>* o, Factorisation f) {
  const Problem& p = x.p;
  const std::int64_t K = p.K, V = p.V;
  const auto &q = x(x.r.q), &k = x(x.r.k), &v = x(x.r.v);
  const Real scale = Real(p.scale);
  std::vector<std::vector<Real>> states{std::vector<Real>(K * V)};
  for (std::int64_t e = 0; e < K * V; ++e) states[0][e] = Real(x(x.r.h0)[(b * p.H + h) * K * V + e]);
  for (std::int64_t t0 = 0; t0 < p.T; t0 += C) {
    const std::int64_t L = std::min<std::int64_t>(C, p.T - t0);
    const ChunkDecays<Real> d = chunk_decays<Real>(x, b, h, t0, L);
    const std::vector<Real>& S = states.back();
    for (std::int64_t i = 0; o && i < L; ++i) {
      const std::int64_t ti = x.row(b, h, t0 + i);
      std::vector<Real> acc(V, 0);
      for (std::int64_t c = 0; c < K; ++c) {  // from the state the chunk started with
        const Real qc = Real(q[ti * K + c]) * std::exp(d.seen(i, c));
        for (std::int64_t j = 0; j < V; ++j) acc[j] += qc * S[c * V + j];
      }
      const std::int64_t last = x.r.form.output_before_update ? i - 1 : i;
      for (std::int64_t s = 0; s <= last; ++s) {  // the chunk's own tokens, through A
        const std::int64_t ts = x.row(b, h, t0 + s);
        Real a = 0;
        for (std::int64_t c = 0; c < K; ++c) {
          const auto [left, right] = d.factors(i, s, c, f);
          a += (Real(q[ti * K + c]) * left) * (Real(k[ts * K + c]) * right);
        }
        for (std::int64_t j = 0; j < V; ++j) acc[j] += a * Real(v[ts * V + j]);
      }
      if (x.r.form.bonus) {  // rwkv6: the current token through u, outside A
        Real weight = 0;
        for (std::int64_t c = 0; c < K; ++c)
          weight += Real(q[ti * K + c]) * Real(x(x.r.u)[h * K + c]) * Real(k[ti * K + c]);
        for (std::int64_t j = 0; j < V; ++j) acc[j] += weight * Real(v[ti * V + j]);
      }
      for (std::int64_t j = 0; j < V; ++j) (*o)[ti * V + j] = double(scale * acc[j]);
    }
    std::vector<Real> next(K * V);  // every term decayed to the chunk's last token
    for (std::int64_t c = 0; c < K; ++c) {
      for (std::int64_t j = 0; j < V; ++j) next[c * V + j] = std::exp(d.whole(c)) * S[c * V + j];
      for (std::int64_t s = 0; s < L; ++s) {
        const std::int64_t ts = x.row(b, h, t0 + s);
        const Real weight = Real(k[ts * K + c]) * std::exp(d.to_end(s, c));
        for (std::int64_t j = 0; j < V; ++j) next[c * V + j] += weight * Real(v[ts * V + j]);
      }
    }
    states.push_back(std::move(next));
  }
  return states;
}

template <class Real>
void chunk_forward(const RecurrenceBinding& r, const Problem& p, int C, const Arrays64& in, Arrays64& out,
                   Factorisation factorisation = Factorisation::sub_chunk_reference) {
  const ChunkTensors x{r, p, in};
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto states = chunk_states<Real>(x, C, b, h, &out.at(r.o).values, factorisation);
      for (std::int64_t e = 0; e < p.K * p.V; ++e)
        out.at(r.ht).values[(b * p.H + h) * p.K * p.V + e] = double(states.back()[e]);
    }
}

// Gradients of every input and of the initial state, given do and dht (named "d" + output), into `grads`
// (named "d" + input).
template <class Real>
void chunk_backward(const RecurrenceBinding& r, const Problem& p, int C, const Arrays64& in,
                    const Arrays64& grad_out, Arrays64& grads) {
  const ChunkTensors x{r, p, in};
  const std::int64_t K = p.K, V = p.V;
  const auto &q = x(r.q), &k = x(r.k), &v = x(r.v);
  const auto& d_o = grad_out.at("d" + r.o).values;
  const auto grad = [&](const std::string& name) -> std::vector<double>& {
    return grads.at("d" + name).values;
  };
  const Real scale = Real(p.scale);
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto states = chunk_states<Real>(x, C, b, h, nullptr, Factorisation::sub_chunk_reference);
      std::vector<Real> dS(K * V);  // dL / d(state after the chunk)
      for (std::int64_t e = 0; e < K * V; ++e)
        dS[e] = Real(grad_out.at("d" + r.ht).values[(b * p.H + h) * K * V + e]);
      std::vector<Real> du(K, 0);
      const std::int64_t chunks = (p.T + C - 1) / C;
      for (std::int64_t n = chunks - 1; n >= 0; --n) {
        const std::int64_t t0 = n * C, L = std::min<std::int64_t>(C, p.T - t0);
        const ChunkDecays<Real> d = chunk_decays<Real>(x, b, h, t0, L);
        const std::vector<Real>& S0 = states[n];
        const auto reads = [&](std::int64_t i, std::int64_t s) {
          return r.form.output_before_update ? s < i : s <= i;
        };
        // v_s . do_i for every pair, and dq, dk, dv without the bonus (the decays' gradient needs them so).
        // dq and dk are kept in parts for dg (below): the terms through at least one decay (decayed), the
        // pair whose exponent spans no decay (undecayed: s = i, or s = i - 1 when the output reads the state
        // before the update), and dk's term through the state handed on (handed).
        std::vector<Real> vdo(L * L), dq(L * K, 0), dq_undecayed(L * K, 0), dk(L * K, 0),
            dk_undecayed(L * K, 0), dk_handed(L * K, 0), dv(L * V, 0);
        const auto undecayed = [&](std::int64_t i, std::int64_t s) {
          return s == (r.form.output_before_update ? i - 1 : i);
        };
        for (std::int64_t i = 0; i < L; ++i)
          for (std::int64_t s = 0; s < L; ++s) {
            Real dot = 0;
            for (std::int64_t j = 0; j < V; ++j)
              dot += Real(v[x.row(b, h, t0 + s) * V + j]) * Real(d_o[x.row(b, h, t0 + i) * V + j]);
            vdo[i * L + s] = dot;
          }
        for (std::int64_t i = 0; i < L; ++i) {
          const std::int64_t ti = x.row(b, h, t0 + i);
          for (std::int64_t c = 0; c < K; ++c) {
            Real acc = 0;  // inter: do_i . S0[c] e^{seen}
            for (std::int64_t j = 0; j < V; ++j) acc += S0[c * V + j] * Real(d_o[ti * V + j]);
            acc *= std::exp(d.seen(i, c));
            for (std::int64_t s = 0; s < L; ++s)
              if (reads(i, s)) {
                const auto [left, right] = d.factors(i, s, c, Factorisation::sub_chunk_reference);
                const Real decay = left * right;
                const std::int64_t ts = x.row(b, h, t0 + s);
                const Real from_q = Real(k[ts * K + c]) * decay * vdo[i * L + s];
                const Real from_k = scale * Real(q[ti * K + c]) * decay * vdo[i * L + s];
                if (undecayed(i, s)) {
                  dq_undecayed[i * K + c] += scale * from_q;
                  dk_undecayed[s * K + c] += from_k;
                } else {
                  acc += from_q;
                  dk[s * K + c] += from_k;
                }
              }
            dq[i * K + c] = scale * acc;
          }
        }
        for (std::int64_t s = 0; s < L; ++s) {
          const std::int64_t ts = x.row(b, h, t0 + s);
          for (std::int64_t c = 0; c < K; ++c) {  // through the state the chunk hands on
            Real acc = 0;
            for (std::int64_t j = 0; j < V; ++j) acc += Real(v[ts * V + j]) * dS[c * V + j];
            dk_handed[s * K + c] = std::exp(d.to_end(s, c)) * acc;
          }
          for (std::int64_t j = 0; j < V; ++j) {
            Real acc = 0;
            for (std::int64_t c = 0; c < K; ++c)
              acc += Real(k[ts * K + c]) * std::exp(d.to_end(s, c)) * dS[c * V + j];
            for (std::int64_t i = 0; i < L; ++i)
              if (reads(i, s)) {
                Real a = 0;
                for (std::int64_t c = 0; c < K; ++c) {
                  const auto [left, right] = d.factors(i, s, c, Factorisation::sub_chunk_reference);
                  a += Real(q[x.row(b, h, t0 + i) * K + c]) * left * right * Real(k[ts * K + c]);
                }
                acc += scale * a * Real(d_o[x.row(b, h, t0 + i) * V + j]);
              }
            dv[s * V + j] = acc;
          }
        }
        // dg_t sums the terms whose decay holds g_t: q.dq of the outputs at and after t (after t when the
        // output reads the state before the update) minus k.dk of the keys at and after t, plus the end
        // state's S1 . dS. The terms with no decay in them appear in both sums and cancel exactly, so they
        // are left out of both rather than subtracted: at log decays of -40 everything else is ~e^-40, and
        // O(1) terms cancelling in fp32 would leave O(1e-7) where the answer is ~1e-18. Likewise S1 . dS less
        // the keys' handed-on terms at and after t is e^{whole} S0 . dS plus those before t: a prefix sum.
        std::vector<Real> dg(L * K);
        for (std::int64_t c = 0; c < K; ++c) {
          Real before = 0;
          for (std::int64_t j = 0; j < V; ++j) before += S0[c * V + j] * dS[c * V + j];
          before *= std::exp(d.whole(c));
          for (std::int64_t t = 0; t < L; ++t) {
            dg[t * K + c] = before;
            before += Real(k[x.row(b, h, t0 + t) * K + c]) * dk_handed[t * K + c];
          }
          Real outputs = 0, keys = 0;
          for (std::int64_t t = L - 1; t >= 0; --t) {
            const std::int64_t tt = x.row(b, h, t0 + t);
            if (r.form.output_before_update) dg[t * K + c] += outputs;  // q.dq of the tokens after t
            outputs += Real(q[tt * K + c]) * dq[t * K + c];
            keys += Real(k[tt * K + c]) * dk[t * K + c];
            if (!r.form.output_before_update) dg[t * K + c] += outputs;
            dg[t * K + c] -= keys;
          }
        }
        for (std::int64_t e = 0; e < L * K; ++e) {
          dq[e] += dq_undecayed[e];
          dk[e] += dk_undecayed[e] + dk_handed[e];
        }
        for (std::int64_t t = 0; t < L; ++t) {  // the bonus's own terms, which no decay touches
          const std::int64_t tt = x.row(b, h, t0 + t);
          for (std::int64_t c = 0; c < K; ++c) {
            if (r.form.bonus) {
              const Real u = Real(x(r.u)[h * K + c]), weight = scale * vdo[t * L + t];
              dq[t * K + c] += weight * u * Real(k[tt * K + c]);
              dk[t * K + c] += weight * u * Real(q[tt * K + c]);
              du[c] += weight * Real(q[tt * K + c]) * Real(k[tt * K + c]);
            }
            grad(r.q)[tt * K + c] = double(dq[t * K + c]);
            grad(r.k)[tt * K + c] = double(dk[t * K + c]);
          }
          if (r.form.bonus) {
            Real weight = 0;
            for (std::int64_t c = 0; c < K; ++c)
              weight += Real(q[tt * K + c]) * Real(x(r.u)[h * K + c]) * Real(k[tt * K + c]);
            for (std::int64_t j = 0; j < V; ++j) dv[t * V + j] += scale * weight * Real(d_o[tt * V + j]);
          }
          for (std::int64_t j = 0; j < V; ++j) grad(r.v)[tt * V + j] = double(dv[t * V + j]);
          if (r.form.gate == GateKind::per_key) {
            for (std::int64_t c = 0; c < K; ++c) grad(r.g)[tt * K + c] = double(dg[t * K + c]);
          } else {
            Real sum = 0;
            for (std::int64_t c = 0; c < K; ++c) sum += dg[t * K + c];
            grad(r.g)[tt] = double(sum);
          }
        }
        // dL / d(state before the chunk): through the outputs and the state handed on.
        std::vector<Real> previous(K * V);
        for (std::int64_t c = 0; c < K; ++c)
          for (std::int64_t j = 0; j < V; ++j) {
            Real acc = std::exp(d.whole(c)) * dS[c * V + j];
            for (std::int64_t i = 0; i < L; ++i) {
              const std::int64_t ti = x.row(b, h, t0 + i);
              acc += scale * Real(q[ti * K + c]) * std::exp(d.seen(i, c)) * Real(d_o[ti * V + j]);
            }
            previous[c * V + j] = acc;
          }
        dS = std::move(previous);
      }
      for (std::int64_t e = 0; e < K * V; ++e) grad(r.h0)[(b * p.H + h) * K * V + e] = double(dS[e]);
      if (r.form.bonus)  // u is per head: the batch's terms add up
        for (std::int64_t c = 0; c < K; ++c) grad(r.u)[h * K + c] += double(du[c]);
    }
}

}  // namespace flabench::testing
