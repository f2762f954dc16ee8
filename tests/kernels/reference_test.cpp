// The fp64 references are the oracle of every check, so they are checked against forms computed another way:
// the closed (unrolled) form of each recurrence for the forward, and finite differences for the backward.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "kernels/common/random.h"
#include "tests/kernels/gsa_closed_form.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

using testing::op_named;
using testing::reference_outputs;
using testing::small_problem;
using testing::zero_arrays;

// Index helpers for [B, T, H, D] and [B, H, K, V].
struct Layout {
  const Problem& p;
  std::int64_t key(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) const {
    return ((b * p.T + t) * p.H + h) * p.K + i;
  }
  std::int64_t value(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t j) const {
    return ((b * p.T + t) * p.H + h) * p.V + j;
  }
  std::int64_t head(std::int64_t b, std::int64_t t, std::int64_t h) const { return (b * p.T + t) * p.H + h; }
  std::int64_t state(std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j) const {
    return ((b * p.H + h) * p.K + i) * p.V + j;
  }
};

using Matrix = std::vector<double>;  // K x V, row-major

// The state after tokens [0, t) of a gated recurrence in closed form:
//   S = diag(exp(G_{t-1})) h0 + sum_{s < t} diag(exp(G_{t-1} - G_s)) k_s v_s^T,  G_t = g_0 + ... + g_t
// gate(b, s, h, i) is the log decay of token s on key channel i.
Matrix gated_state(const Problem& p, const Arrays64& in, const std::string& k_name, std::int64_t b,
                   std::int64_t h, std::int64_t t,
                   const std::function<double(std::int64_t, std::int64_t)>& gate) {
  const Layout at{p};
  Matrix S(p.K * p.V);
  for (std::int64_t i = 0; i < p.K; ++i) {
    double G_end = 0;
    for (std::int64_t s = 0; s < t; ++s) G_end += gate(s, i);
    for (std::int64_t j = 0; j < p.V; ++j)
      S[i * p.V + j] = std::exp(G_end) * in.at("h0").values[at.state(b, h, i, j)];
    double G_s = 0;
    for (std::int64_t s = 0; s < t; ++s) {
      G_s += gate(s, i);
      for (std::int64_t j = 0; j < p.V; ++j)
        S[i * p.V + j] += std::exp(G_end - G_s) * in.at(k_name).values[at.key(b, s, h, i)] *
                          in.at("v").values[at.value(b, s, h, j)];
    }
  }
  return S;
}

double read_out(const Problem& p, const Matrix& S, const Arrays64& in, const std::string& q_name,
                std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t j) {
  const Layout at{p};
  double acc = 0;
  for (std::int64_t i = 0; i < p.K; ++i) acc += in.at(q_name).values[at.key(b, t, h, i)] * S[i * p.V + j];
  return acc;
}

void expect_close(const Arrays64& got, const Arrays64& want, double tolerance = 1e-10) {
  for (const auto& [name, expected] : want) {
    const Array64& actual = got.at(name);
    ASSERT_EQ(actual.values.size(), expected.values.size()) << name;
    for (std::size_t n = 0; n < expected.values.size(); ++n)
      ASSERT_NEAR(actual.values[n], expected.values[n], tolerance * (1 + std::abs(expected.values[n])))
          << name << "[" << n << "]";
  }
}

Arrays64 closed_form_gated(const OpSpec& op, const Problem& p, const Arrays64& in) {
  const Layout at{p};
  const bool rwkv6 = op.name == "rwkv6", per_head = op.name == "simple_gla";
  const std::string q_name = rwkv6 ? "r" : "q", g_name = rwkv6 ? "w" : "g";
  Arrays64 out = zero_arrays(op.outputs, p);
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h) {
      auto gate = [&](std::int64_t s, std::int64_t i) {
        return per_head ? in.at(g_name).values[at.head(b, s, h)] : in.at(g_name).values[at.key(b, s, h, i)];
      };
      for (std::int64_t t = 0; t < p.T; ++t) {
        // gla/simple_gla read the state after token t; rwkv6 reads it before, plus the bonus term.
        const Matrix S = gated_state(p, in, "k", b, h, rwkv6 ? t : t + 1, gate);
        double bonus = 0;
        if (rwkv6)
          for (std::int64_t i = 0; i < p.K; ++i)
            bonus += in.at("r").values[at.key(b, t, h, i)] * in.at("u").values[h * p.K + i] *
                     in.at("k").values[at.key(b, t, h, i)];
        for (std::int64_t j = 0; j < p.V; ++j)
          out.at("o").values[at.value(b, t, h, j)] =
              p.scale *
              (read_out(p, S, in, q_name, b, t, h, j) + bonus * in.at("v").values[at.value(b, t, h, j)]);
      }
      const Matrix final_state = gated_state(p, in, "k", b, h, p.T, gate);
      for (std::int64_t n = 0; n < p.K * p.V; ++n)
        out.at("ht").values[at.state(b, h, 0, 0) + n] = final_state[n];
    }
  return out;
}

// rwkv7 as products of transition matrices M_t = diag(exp(w_t)) + b_t a_t^T:
//   S_t = M_t ... M_1 h0 + sum_s M_t ... M_{s+1} k_s v_s^T
Arrays64 closed_form_rwkv7(const OpSpec& op, const Problem& p, const Arrays64& in) {
  const Layout at{p};
  Arrays64 out = zero_arrays(op.outputs, p);
  auto value = [&](const char* name, std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) {
    return in.at(name).values[at.key(b, t, h, i)];
  };
  for (std::int64_t b = 0; b < p.B; ++b)
    for (std::int64_t h = 0; h < p.H; ++h)
      for (std::int64_t t = 0; t < p.T; ++t) {
        // P = M_t ... M_{s+1}, built for s = t, t-1, ..., -1 by multiplying on the right.
        Matrix P(p.K * p.K, 0.0), S(p.K * p.V, 0.0);
        for (std::int64_t i = 0; i < p.K; ++i) P[i * p.K + i] = 1;
        for (std::int64_t s = t; s >= -1; --s) {
          if (s >= 0)
            for (std::int64_t i = 0; i < p.K; ++i)
              for (std::int64_t j = 0; j < p.V; ++j)
                for (std::int64_t m = 0; m < p.K; ++m)
                  S[i * p.V + j] +=
                      P[i * p.K + m] * value("k", b, s, h, m) * in.at("v").values[at.value(b, s, h, j)];
          else
            for (std::int64_t i = 0; i < p.K; ++i)
              for (std::int64_t j = 0; j < p.V; ++j)
                for (std::int64_t m = 0; m < p.K; ++m)
                  S[i * p.V + j] += P[i * p.K + m] * in.at("h0").values[at.state(b, h, m, j)];
          if (s < 0) break;
          Matrix M(p.K * p.K, 0.0), next(p.K * p.K, 0.0);  // M_s
          for (std::int64_t i = 0; i < p.K; ++i)
            for (std::int64_t m = 0; m < p.K; ++m)
              M[i * p.K + m] = (i == m ? std::exp(value("w", b, s, h, i)) : 0.0) +
                               value("b", b, s, h, i) * value("a", b, s, h, m);
          for (std::int64_t i = 0; i < p.K; ++i)
            for (std::int64_t m = 0; m < p.K; ++m)
              for (std::int64_t n = 0; n < p.K; ++n) next[i * p.K + n] += P[i * p.K + m] * M[m * p.K + n];
          P.swap(next);
        }
        for (std::int64_t j = 0; j < p.V; ++j)
          out.at("o").values[at.value(b, t, h, j)] = p.scale * read_out(p, S, in, "r", b, t, h, j);
        if (t == p.T - 1)
          for (std::int64_t n = 0; n < p.K * p.V; ++n) out.at("ht").values[at.state(b, h, 0, 0) + n] = S[n];
      }
  return out;
}

class ReferenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceTest, ForwardMatchesClosedForm) {
  const OpSpec& op = op_named(GetParam());
  for (const auto& [T, K, V] : {std::tuple{1, 4, 4}, {6, 5, 3}, {9, 3, 6}}) {
    const Problem p = small_problem(op, 2, T, 2, K, V);
    const Arrays64 in = to_arrays64(make_input_values(op, p, 7));
    const Arrays64 want = op.name == "rwkv7" ? closed_form_rwkv7(op, p, in)
                          : op.name == "gsa" ? testing::closed_form_gsa(op, p, in)
                                             : closed_form_gated(op, p, in);
    expect_close(reference_outputs(op, p, in), want);
  }
}

// dL/dx for L = sum(o * do) + sum(ht * dht), by central differences in fp64.
TEST_P(ReferenceTest, BackwardMatchesFiniteDifferences) {
  const OpSpec& op = op_named(GetParam());
  const Problem p = small_problem(op, 2, 7, 2, 5, 3);  // K != V, odd sizes
  Arrays64 in = to_arrays64(make_input_values(op, p, 11));
  const Arrays64 grad_out = to_arrays64(make_grad_output_values(op, p, 12));
  Arrays64 grads = zero_arrays(grad_specs(op), p);
  op.reference_backward(p, in, grad_out, grads);

  auto loss = [&] {
    const Arrays64 out = reference_outputs(op, p, in);
    double sum = 0;
    for (const auto& [name, values] : out)
      for (std::size_t n = 0; n < values.values.size(); ++n)
        sum += values.values[n] * grad_out.at("d" + name).values[n];
    return sum;
  };
  const RandomStream pick(3, "indices");
  for (const TensorSpec& spec : op.inputs) {
    if (!spec.differentiable) continue;
    std::vector<double>& x = in.at(spec.name).values;
    const std::vector<double>& analytic = grads.at("d" + spec.name).values;
    for (int sample = 0; sample < 12; ++sample) {
      const std::size_t n =
          static_cast<std::size_t>(pick.uniform(sample + 100 * spec.name.size()) * x.size());
      const double saved = x[n], eps = 1e-6;
      x[n] = saved + eps;
      const double up = loss();
      x[n] = saved - eps;
      const double down = loss();
      x[n] = saved;
      const double numeric = (up - down) / (2 * eps);
      EXPECT_NEAR(analytic[n], numeric, 1e-6 * (1 + std::abs(numeric)))
          << "d" << spec.name << "[" << n << "]";
    }
  }
}

TEST_P(ReferenceTest, GradientsHaveTheInputsShapes) {
  const OpSpec& op = op_named(GetParam());
  const Problem p = small_problem(op, 1, 3, 2, 4, 6);
  for (const TensorSpec& grad : grad_specs(op)) {
    const auto input = std::find_if(op.inputs.begin(), op.inputs.end(),
                                    [&](const TensorSpec& s) { return "d" + s.name == grad.name; });
    ASSERT_NE(input, op.inputs.end()) << grad.name;
    EXPECT_EQ(grad.shape(p), input->shape(p)) << grad.name;
  }
  // the fp32 inputs are exactly the initial states
  for (const TensorSpec& input : op.inputs) {
    const bool state = std::any_of(op.states.begin(), op.states.end(),
                                   [&](const auto& pair) { return pair.first == input.name; });
    EXPECT_EQ(state, !input.in_case_dtype) << input.name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, ReferenceTest, ::testing::Values("rwkv6", "rwkv7", "gla", "simple_gla"));
INSTANTIATE_TEST_SUITE_P(SlotOps, ReferenceTest, ::testing::Values("gsa"));

}  // namespace
}  // namespace flabench
