// gsa's chunk form (tests/kernels/gsa_chunk_form.h) against the fp64 recurrence: the design for gsa's chunk
// kernel checked before any kernel, and the steep-forget-gate NaN of issue 10 reproduced with the
// one-reference factorisation and absent from the sub-chunk form.
#include "tests/kernels/gsa_chunk_form.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "suites/inputs.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

bool all_finite(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [](double e) { return std::isfinite(e); });
}

// Two query heads per key/value head, K != M != V.
Problem gsa_problem(std::int64_t T) {
  Problem p = testing::small_problem(testing::op_named("gsa"), 1, T, 2, 16, 8);
  p.M = 32;
  return p;
}

Arrays64 gsa_inputs(const Problem& p, double steep_gate) {
  Arrays64 in = to_arrays64(make_input_values(testing::op_named("gsa"), p, 5));
  if (steep_gate != 0) {
    std::vector<double>& f = in.at("f").values;
    for (std::size_t e = 0; e < f.size(); e += 3) f[e] = steep_gate;  // every third slot gate
  }
  return in;
}

template <class Real>
Arrays64 chunked(const Problem& p, int C, const Arrays64& in,
                 testing::Factorisation f = testing::Factorisation::sub_chunk_reference) {
  Arrays64 out = testing::zero_arrays(testing::op_named("gsa").outputs, p);
  testing::gsa_chunk_forward<Real>(p, C, in, out, f);
  return out;
}

TEST(GsaChunkForm, MatchesTheRecurrenceWithGroupedQueries) {
  for (double steep : {0.0, -40.0})
    for (int C : {16, 64})
      for (std::int64_t T : {1, 65, 100}) {
        const Problem p = gsa_problem(T);
        const Arrays64 in = gsa_inputs(p, steep);
        const Arrays64 want = testing::reference_outputs(testing::op_named("gsa"), p, in);
        const Arrays64 exact = chunked<double>(p, C, in), single = chunked<float>(p, C, in);
        for (const char* name : {"o", "hkt", "hvt"}) {
          const std::string at = std::string(name) + " C=" + std::to_string(C) + " T=" + std::to_string(T) +
                                 " f=" + std::to_string(steep);
          EXPECT_LT(testing::compare(exact.at(name).values, want.at(name).values).rms_ratio, 1e-12) << at;
          EXPECT_TRUE(all_finite(single.at(name).values)) << at;
          // at f = -40 the softmax of o sees 2.0-2.3e-6, the states as little as at typical gates
          EXPECT_LT(testing::compare(single.at(name).values, want.at(name).values).rms_ratio,
                    steep != 0 ? 5e-6 : 2e-6)
              << at << " (fp32)";
        }
      }
}

// Every gradient (q, k, v, s, f, both initial states) with incoming final-state gradients.
TEST(GsaChunkForm, BackwardMatchesBackpropagationThroughTheRecurrence) {
  const OpSpec& op = testing::op_named("gsa");
  double worst = 0;
  std::string worst_at;
  for (double steep : {0.0, -40.0})
    for (int C : {16, 64})
      for (std::int64_t T : {1, 65, 100}) {
        const Problem p = gsa_problem(T);
        const Arrays64 in = gsa_inputs(p, steep);
        const Arrays64 grad_out = to_arrays64(make_grad_output_values(op, p, 9));
        Arrays64 want = testing::zero_arrays(grad_specs(op), p);
        op.reference_backward(p, in, grad_out, want);
        Arrays64 exact = testing::zero_arrays(grad_specs(op), p), single = exact;
        testing::gsa_chunk_backward<double>(p, in, grad_out, exact, C);
        testing::gsa_chunk_backward<float>(p, in, grad_out, single, C);
        for (const TensorSpec& g : grad_specs(op)) {
          const std::string at =
              g.name + " C=" + std::to_string(C) + " T=" + std::to_string(T) + " f=" + std::to_string(steep);
          EXPECT_LT(testing::compare(exact.at(g.name).values, want.at(g.name).values).rms_ratio, 1e-11) << at;
          EXPECT_TRUE(all_finite(single.at(g.name).values)) << at;
          const double e = testing::compare(single.at(g.name).values, want.at(g.name).values).rms_ratio;
          EXPECT_LT(e, 1e-5) << at << " (fp32)";
          if (e > worst) worst = e, worst_at = at;
        }
      }
  std::cout << "  backward, fp32: worst rms ratio " << worst << " (" << worst_at << ")\n";
}

TEST(GsaChunkForm, TheOneReferenceFactorisationTurnsSteepForgetGatesIntoNaN) {
  const Problem p = gsa_problem(64);
  EXPECT_TRUE(
      all_finite(chunked<float>(p, 64, gsa_inputs(p, 0), testing::Factorisation::chunk_start).at("o").values))
      << "fine at the gates a model starts training with";
  EXPECT_FALSE(all_finite(
      chunked<float>(p, 64, gsa_inputs(p, -40), testing::Factorisation::chunk_start).at("o").values));
  EXPECT_TRUE(all_finite(chunked<float>(p, 64, gsa_inputs(p, -40)).at("o").values));
}

}  // namespace
}  // namespace flabench
