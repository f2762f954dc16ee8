// simple_gla's backward as passes of its forward (kernels/simple_gla/chunk_fused_forward.cu,
// simple_gla_fused_backward; chunk_gate_grads.cu), on the host token by token: dq a forward pass with do, v,
// k in the roles of q, k, v and the state transposed; dk and dv reverse passes (v, do, q from dS_T^T; k, q,
// do from dS_T); dg from the passes' dots. Held to the fp64 recurrence's backward in fp64, and in fp32 at log
// decays of -40; and the reason dk's pass keeps the final state's gradient apart: summed with the rest, its
// O(1) terms leave their fp32 rounding in dg, which is ~e^-40 there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/simple_gla/simple_gla.h"
#include "suites/inputs.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

// One head's tensors as Real, rows of `width` a token.
template <class Real>
std::vector<Real> head_rows(const std::vector<double>& x, const Problem& p, std::int64_t b, std::int64_t h,
                            std::int64_t width) {
  std::vector<Real> rows(p.T * width);
  for (std::int64_t t = 0; t < p.T; ++t)
    for (std::int64_t c = 0; c < width; ++c)
      rows[t * width + c] = Real(x[((b * p.T + t) * p.H + h) * width + c]);
  return rows;
}

// What a pass gives each token: its output row without P's diagonal term (`rest`) and that term
// (`diagonal`), both before `scale`, and where a reverse pass keeps its initial state apart, that state's
// term (`initial`, zero elsewhere): o = scale (rest + diagonal) + initial.
template <class Real>
struct PassRows {
  std::vector<Real> rest, diagonal, initial;
  Real scale;
};

// A pass over one head with queries Q, keys Kk (both N wide) and values Vv (M wide), gates g and the initial
// state (N x M, row-major). forward: o_t = scale (e^{g_t} S_{t-1}^T Q_t + (Q_t . K_t) V_t), S_t = e^{g_t}
// S_{t-1} + K_t V_t^T. reverse (tokens from the last, each token's gate applied to the tokens after it): o_t
// = e^{g_{t+1}} R_{t+1}^T Q_t + scale (Q_t . K_t) V_t, R_t = e^{g_{t+1}} R_{t+1} + scale K_t V_t^T (the
// kernel's update with v scale e^{seen}); with the initial state apart, R starts at zero and its term is
// kept in `initial`. `end`: forward's last state, reverse's times the first token's gate.
template <class Real>
PassRows<Real> run_pass(bool reverse, bool initial_apart, const Problem& p, const std::vector<Real>& Q,
                        const std::vector<Real>& Kk, const std::vector<Real>& Vv, const std::vector<Real>& g,
                        std::int64_t N, std::int64_t M, const std::vector<Real>& start,
                        std::vector<Real>* end) {
  const Real scale = Real(p.scale), update = reverse ? scale : Real(1);
  PassRows<Real> rows{std::vector<Real>(p.T * M), std::vector<Real>(p.T * M), std::vector<Real>(p.T * M),
                      reverse ? Real(1) : scale};
  std::vector<Real> S = initial_apart ? std::vector<Real>(N * M) : start, initial = start;
  for (std::int64_t step = 0; step < p.T; ++step) {
    const std::int64_t t = reverse ? p.T - 1 - step : step;
    const Real decay = reverse ? (t + 1 < p.T ? std::exp(g[t + 1]) : Real(1)) : std::exp(g[t]);
    for (Real& s : S) s *= decay;
    if (initial_apart)
      for (Real& s : initial) s *= decay;
    Real qk = 0;
    for (std::int64_t n = 0; n < N; ++n) qk += Q[t * N + n] * Kk[t * N + n];
    for (std::int64_t m = 0; m < M; ++m) {
      Real rest = 0, apart = 0;
      for (std::int64_t n = 0; n < N; ++n) {
        rest += S[n * M + m] * Q[t * N + n];
        if (initial_apart) apart += initial[n * M + m] * Q[t * N + n];
      }
      rows.rest[t * M + m] = rest, rows.initial[t * M + m] = apart;
      rows.diagonal[t * M + m] = update * qk * Vv[t * M + m];
    }
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t m = 0; m < M; ++m) S[n * M + m] += update * Kk[t * N + n] * Vv[t * M + m];
  }
  if (reverse)
    for (Real& s : S) s *= std::exp(g[0]);
  if (end) *end = S;
  return rows;
}

template <class Real>
Real row_dot(const std::vector<Real>& a, const std::vector<Real>& b, std::int64_t t, std::int64_t width) {
  Real sum = 0;
  for (std::int64_t c = 0; c < width; ++c) sum += a[t * width + c] * b[t * width + c];
  return sum;
}

// The backward of simple_gla through the passes, into `grads`. final_apart: dg as the kernels take it (dk's
// final-state terms summed forwards); else with them summed against S_T . d_ht (the form that fails).
template <class Real>
void backward_by_passes(const Problem& p, const Arrays64& in, const Arrays64& grad_out, Arrays64& grads,
                        bool final_apart) {
  const std::int64_t K = p.K, V = p.V;
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      const auto q = head_rows<Real>(in.at("q").values, p, b, h, K),
                 k = head_rows<Real>(in.at("k").values, p, b, h, K),
                 v = head_rows<Real>(in.at("v").values, p, b, h, V),
                 g = head_rows<Real>(in.at("g").values, p, b, h, 1),
                 d_o = head_rows<Real>(grad_out.at("do").values, p, b, h, V);
      const std::int64_t head = (b * p.H + h) * K * V;
      std::vector<Real> h0(K * V), h0_t(K * V), d_ht(K * V), d_ht_t(K * V);
      for (std::int64_t c = 0; c < K; ++c)
        for (std::int64_t j = 0; j < V; ++j) {
          h0[c * V + j] = h0_t[j * K + c] = Real(in.at("h0").values[head + c * V + j]);
          d_ht[c * V + j] = d_ht_t[j * K + c] = Real(grad_out.at("dht").values[head + c * V + j]);
        }
      // dq: forward(do, v, k) from S0^T; dk: reverse(v, do, q) from dS_T^T (apart); dv: reverse(k, q, do)
      std::vector<Real> final_t, dh0;
      const auto dq = run_pass<Real>(false, false, p, d_o, v, k, g, V, K, h0_t, &final_t);
      const auto dk = run_pass<Real>(true, final_apart, p, v, d_o, q, g, V, K, d_ht_t, nullptr);
      const auto dv = run_pass<Real>(true, false, p, k, q, d_o, g, K, V, d_ht, &dh0);
      std::vector<Real> rest(p.T), final_terms(p.T);
      Real G = 0;
      for (std::int64_t t = 0; t < p.T; ++t) {
        rest[t] = dq.scale * row_dot(dq.rest, q, t, K) - dk.scale * row_dot(dk.rest, k, t, K);
        final_terms[t] = row_dot(dk.initial, k, t, K);
        G += g[t];
      }
      Real state = 0;  // final_apart: e^{G_T} h0 . d_ht; else S_T . d_ht
      for (std::int64_t e = 0; e < K * V; ++e)
        state += final_apart ? h0[e] * d_ht[e] : final_t[(e % V) * K + e / V] * d_ht[e];
      if (final_apart) state *= std::exp(G);
      // (the naive form's dk carries d_ht in its state: its `rest` holds those terms, none apart)
      Real after = 0;
      std::vector<Real> dg(p.T);
      for (std::int64_t t = p.T - 1; t >= 0; --t) after += rest[t], dg[t] = after;
      Real before = 0;
      for (std::int64_t t = 0; t < p.T; ++t) {
        dg[t] += state + before;
        if (final_apart) before += final_terms[t];
      }
      const auto put = [&](const char* name, std::int64_t width, const PassRows<Real>& r) {
        for (std::int64_t t = 0; t < p.T; ++t)
          for (std::int64_t c = 0; c < width; ++c)
            grads.at(name).values[((b * p.T + t) * p.H + h) * width + c] = double(
                r.scale * (r.rest[t * width + c] + r.diagonal[t * width + c]) + r.initial[t * width + c]);
      };
      put("dq", K, dq);
      put("dk", K, dk);
      put("dv", V, dv);
      for (std::int64_t t = 0; t < p.T; ++t) grads.at("dg").values[(b * p.T + t) * p.H + h] = double(dg[t]);
      for (std::int64_t e = 0; e < K * V; ++e) grads.at("dh0").values[head + e] = double(dh0[e]);
    }
}

struct CheckedRun {
  Arrays64 in, grad_out, want;
};
CheckedRun reference_run(const Problem& p, double steep) {
  const OpSpec& op = testing::op_named("simple_gla");
  CheckedRun run{to_arrays64(make_input_values(op, p, 7)), to_arrays64(make_grad_output_values(op, p, 11)),
                 testing::zero_arrays(grad_specs(op), p)};
  if (steep != 0)
    for (double& x : run.in.at("g").values) x = steep;
  op.reference_backward(p, run.in, run.grad_out, run.want);
  return run;
}

template <class Real>
Arrays64 by_passes(const Problem& p, const CheckedRun& run, bool final_apart) {
  Arrays64 grads = testing::zero_arrays(grad_specs(testing::op_named("simple_gla")), p);
  backward_by_passes<Real>(p, run.in, run.grad_out, grads, final_apart);
  return grads;
}

TEST(ScalarBackwardPasses, GiveEveryGradientOfTheRecurrence) {
  const OpSpec& op = testing::op_named("simple_gla");
  for (const auto& [K, V] : {std::pair<std::int64_t, std::int64_t>{16, 16}, {16, 8}, {8, 16}})
    for (const double steep : {0.0, -40.0}) {  // typical gates; every gate at -40 (dg ~e^-40)
      const Problem p = testing::small_problem(op, 2, 37, 2, K, V);
      const CheckedRun run = reference_run(p, steep);
      const Arrays64 exact = by_passes<double>(p, run, true), single = by_passes<float>(p, run, true);
      for (const TensorSpec& g : grad_specs(op)) {
        const std::string at = g.name + " K=" + std::to_string(K) + " V=" + std::to_string(V) +
                               " steep=" + std::to_string(steep);
        EXPECT_LT(testing::compare(exact.at(g.name).values, run.want.at(g.name).values).rms_ratio, 1e-11)
            << at;
        const testing::Deviation e = testing::compare(single.at(g.name).values, run.want.at(g.name).values);
        EXPECT_TRUE(e.finite) << at;
        EXPECT_LT(e.rms_ratio, 1e-5) << at << " (fp32)";
      }
    }
}

// Summed against S_T . d_ht, dk's terms through the final state's gradient are O(1) where every gate is
// -40 and dg is ~e^-40 (4e-18): the same algebra, exact at typical gates, keeps their rounding in dg, in fp32
// and even in fp64 (whose ulp at 1 is 2e-16).
TEST(ScalarBackwardPasses, KeepTheFinalStatesTermsApartForTheGatesGradient) {
  const Problem p = testing::small_problem(testing::op_named("simple_gla"), 2, 37, 2, 16, 16);
  const CheckedRun typical = reference_run(p, 0.0), steep = reference_run(p, -40.0);
  const auto dg_error = [&](auto real, const CheckedRun& run, bool apart) {
    using Real = decltype(real);
    return testing::compare(by_passes<Real>(p, run, apart).at("dg").values, run.want.at("dg").values)
        .rms_ratio;
  };
  EXPECT_LT(dg_error(double{}, typical, false), 1e-11);  // the naive form is the same algebra
  EXPECT_GT(dg_error(double{}, steep, false), 1.0);      // and misses dg by orders of magnitude at -40
  EXPECT_GT(dg_error(float{}, steep, false), 1.0);
  EXPECT_LT(dg_error(double{}, steep, true), 1e-11);
  EXPECT_LT(dg_error(float{}, steep, true), 1e-5);
}

}  // namespace
}  // namespace flabench
