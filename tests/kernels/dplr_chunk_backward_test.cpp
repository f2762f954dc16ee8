// rwkv7's backward in chunk form (tests/kernels/dplr_chunk_backward_form.h) against backpropagation through
// the recurrence: the design of a chunked backward checked before any kernel, and which of its intermediates
// may be stored in bf16 (kernels/notes/rwkv7_chunk.md records the table this prints).
#include "tests/kernels/dplr_chunk_backward_form.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "kernels/common/format.h"
#include "suites/inputs.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

using testing::Intermediate;
using testing::StoragePlan;

Arrays64 reference_gradients(const Problem& p, const Arrays64& in, const Arrays64& grad_out) {
  const OpSpec& op = testing::op_named("rwkv7");
  Arrays64 want = testing::zero_arrays(grad_specs(op), p);
  op.reference_backward(p, in, grad_out, want);
  return want;
}

Arrays64 chunk_gradients(const Problem& p, int C, const Arrays64& in, const Arrays64& grad_out,
                         const StoragePlan& plan = {}) {
  Arrays64 got = testing::zero_arrays(grad_specs(testing::op_named("rwkv7")), p);
  testing::dplr_chunk_backward(p, C, in, grad_out, got, plan);
  return got;
}

// Every gradient (r, w, k, v, a, b, h0) with an incoming final-state gradient, K != V both ways, T not a
// multiple of the chunk, and w = -5 (the wider range issue 5 names) as well as the layer's.
TEST(DplrChunkBackward, MatchesBackpropagationThroughTheRecurrence) {
  const OpSpec& op = testing::op_named("rwkv7");
  double worst = 0;
  for (const auto& [K, V] : {std::pair<std::int64_t, std::int64_t>{32, 16}, {16, 32}})
    for (bool steep : {false, true})
      for (int C : {16, 64})
        for (std::int64_t T : {1, 65, 100}) {
          const Problem p = testing::small_problem(op, 2, T, 2, K, V);
          Arrays64 in = to_arrays64(make_input_values(op, p, 7));
          if (steep) std::fill(in.at("w").values.begin(), in.at("w").values.end(), -5.0);
          const Arrays64 grad_out = to_arrays64(make_grad_output_values(op, p, 9));
          const Arrays64 want = reference_gradients(p, in, grad_out),
                         got = chunk_gradients(p, C, in, grad_out);
          for (const TensorSpec& g : grad_specs(op)) {
            const double e = testing::compare(got.at(g.name).values, want.at(g.name).values).rms_ratio;
            EXPECT_LT(e, 1e-11) << g.name << " K" << K << " V" << V << " C" << C << " T" << T
                                << (steep ? " w=-5" : "");
            worst = std::max(worst, e);
          }
        }
  std::cout << "  fp64 chunk form against the recurrence: worst rms ratio " << worst << "\n";
}

// The worst gradient's deviation from the recurrence's and which gradient it is.
struct Worst {
  testing::Deviation deviation{0, 0, true};
  std::string gradient;
};
Worst worst_gradient(const Arrays64& got, const Arrays64& want) {
  Worst worst;
  for (const TensorSpec& g : grad_specs(testing::op_named("rwkv7"))) {
    const testing::Deviation d = testing::compare(got.at(g.name).values, want.at(g.name).values);
    if (d.rms_ratio > worst.deviation.rms_ratio) worst = {d, g.name};
  }
  return worst;
}

// A 1024-token prefill in the layer's ranges (bf16 inputs), the forward's intermediates in fp32, each
// backward intermediate in bf16 alone (the rest fp32): which a chunked backward must keep in fp32.
TEST(DplrChunkBackward, WhichIntermediatesNeedFp32) {
  const OpSpec& op = testing::op_named("rwkv7");
  const Problem p = testing::small_problem(op, 1, 1024, 2, 64, 64, DType::bf16);
  const Arrays64 in = to_arrays64(make_input_values(op, p, 3)),
                 grad_out = to_arrays64(make_grad_output_values(op, p, 4));
  const Arrays64 want = reference_gradients(p, in, grad_out);
  StoragePlan fp32, bf16;  // the forward's intermediates fp32 in both
  for (const auto& [what, name] : testing::intermediate_names())
    fp32[what] = DType::fp32, bf16[what] = testing::of_backward(what) ? DType::bf16 : DType::fp32;
  const auto report = [&](const std::string& label, const StoragePlan& plan) {
    const Worst w = worst_gradient(chunk_gradients(p, 64, in, grad_out, plan), want);
    std::cout << format("  %-28s worst %-3s rms %.2e max %.2e\n", label.c_str(), w.gradient.c_str(),
                        w.deviation.rms_ratio, w.deviation.max_abs);
    return w.deviation.rms_ratio;
  };
  EXPECT_LT(report("every intermediate fp32", fp32), 1e-6);
  // Five cost a gradient 1.6e-3 alone (what rounding a gradient itself to bf16 costs): the state gradient
  // between chunks (its rounding reaches every earlier chunk), dV_new, and the output's and U's pair
  // gradients dA_qk, dA_qb, dA_ak; dA_ab and dW under 5e-4.
  const std::set<Intermediate> costly{Intermediate::dstate, Intermediate::dV_new, Intermediate::dA_qk,
                                      Intermediate::dA_qb, Intermediate::dA_ak};
  for (const auto& [what, name] : testing::intermediate_names()) {
    if (!testing::of_backward(what)) continue;
    StoragePlan one = fp32;
    one[what] = DType::bf16;
    const double e = report(name + " in bf16", one);
    if (costly.count(what))
      EXPECT_GT(e, 1e-3) << name;
    else
      EXPECT_LT(e, 5e-4) << name;
  }
  report("every intermediate bf16", bf16);
}

}  // namespace
}  // namespace flabench
