// The spot check must pass a correct variant and name what is wrong with a broken one.
#include "suites/checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/common/reference_variant.h"
#include "suites/thresholds.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

TEST(CompareTensor, RatioMaxAbsAndNonFinite) {
  Array64 ref({4}), got({4});
  ref.values = {1, -2, 3, 4};
  got.values = {1, -2, 3, 4.3};
  TensorCheckRecord r = compare_tensor("o", ref, got, DType::fp32, 0.1);
  EXPECT_NEAR(r.rms_ratio, 0.3 / std::sqrt(30.0), 1e-12);
  EXPECT_NEAR(r.max_abs, 0.3, 1e-12);
  EXPECT_TRUE(r.passed);
  EXPECT_FALSE(compare_tensor("o", ref, got, DType::fp32, 0.01).passed);

  got.values[1] = std::numeric_limits<double>::quiet_NaN();
  r = compare_tensor("o", ref, got, DType::fp32, 1.0);
  EXPECT_EQ(r.nonfinite, 1);
  EXPECT_FALSE(r.passed);

  Array64 zeros({2}), small({2});
  small.values = {0, 1e-30};
  EXPECT_TRUE(compare_tensor("du", zeros, zeros, DType::fp32, 1e-5).passed);
  EXPECT_FALSE(compare_tensor("du", zeros, small, DType::fp32, 1e-5).passed);
}

TEST(CompareTensor, RaisesTheBarOnlyWhereTheDtypeCannotHoldTheReference) {
  Array64 tiny({2}), zeros({2});
  tiny.values = {1e-18, -2e-18};  // below fp16's smallest subnormal (6e-8); bf16 holds it
  TensorCheckRecord r = compare_tensor("dg", tiny, zeros, DType::fp16, 3e-3);
  EXPECT_TRUE(r.passed);
  EXPECT_DOUBLE_EQ(r.threshold, 2.0);
  EXPECT_NE(r.detail.find("raised"), std::string::npos);
  EXPECT_FALSE(compare_tensor("dg", tiny, zeros, DType::bf16, 6e-3).passed);

  Array64 ref({3}), got({3});
  ref.values = {1.001, -2.002, 3.003};  // bf16 rounds these by ~1e-3, well under half the threshold
  got.values = {1.0, -2.0, 3.0};
  r = compare_tensor("o", ref, got, DType::bf16, 5e-3);
  EXPECT_EQ(r.threshold, 5e-3);
  EXPECT_TRUE(r.detail.empty());
}

TEST(Thresholds, FollowTheNumericsSpec) {
  EXPECT_EQ(check_threshold(DType::bf16, TensorRole::forward, false), 5e-3);
  EXPECT_EQ(check_threshold(DType::bf16, TensorRole::state, false), 1e-4);
  EXPECT_EQ(check_threshold(DType::fp16, TensorRole::state, false), 1e-4);
  EXPECT_EQ(check_threshold(DType::fp32, TensorRole::state, false), 1e-5);
  EXPECT_EQ(check_threshold(DType::bf16, TensorRole::gradient, false), 6e-3);
  EXPECT_EQ(check_threshold(DType::fp16, TensorRole::forward, false), 2e-3);
  EXPECT_EQ(check_threshold(DType::fp16, TensorRole::gradient, false), 3e-3);
  EXPECT_EQ(check_threshold(DType::fp32, TensorRole::gradient, false), 1e-5);
  EXPECT_EQ(check_threshold(DType::fp32, TensorRole::gradient, true), 2e-3);
}

TEST(CheckProblem, ShortensOnlyBatchHeadsAndTime) {
  const Problem p{8, 24576, 16, 128, 64, DType::bf16, 64, 0.125};
  const Problem c = check_problem(p);
  EXPECT_EQ(c, (Problem{2, 257, 3, 128, 64, DType::bf16, 64, 0.125}));
  EXPECT_EQ(check_problem(c), c);
  const Problem tiny{1, 5, 1, 16, 16, DType::fp32};
  EXPECT_EQ(check_problem(tiny), tiny);
}

class ChecksOnCpu : public ::testing::Test {
 protected:
  std::unique_ptr<Device> device = open_cpu_device();
};

TEST_F(ChecksOnCpu, TheReferenceVariantPassesEveryOpAndDtype) {
  for (const OpSpec* op : product_registry().ops())
    for (DType dtype : kAllDTypes) {
      const Problem p = testing::small_problem(*op, 2, 19, 3, 8, 4, dtype);
      const CheckRecord check = run_check(
          *device, *op, *product_registry().find_variant(op->name, "reference"), p, Mode::fwdbwd, 5);
      EXPECT_TRUE(check.passed) << op->name << " " << dtype_name(dtype) << ": " << check_summary(check);
      // the outputs of the forward that saved for the backward and of the inference forward, the gradients
      EXPECT_EQ(check.tensors.size(), 2 * op->outputs.size() + grad_specs(*op).size());
      EXPECT_EQ(check.shape, shape_label(p)) << "the case's own shape: it is small enough";
    }
}

// Test-only variants with planted faults; never registered in the product.
Variant broken(const OpSpec& op, std::function<void(TensorMap&)> corrupt_outputs,
               std::function<void(TensorMap&)> corrupt_grads) {
  Variant variant = make_reference_variant(op);
  variant.name = "broken";
  variant.forward = [inner = variant.forward, corrupt_outputs](const ForwardCall& call) {
    inner(call);
    if (corrupt_outputs) corrupt_outputs(call.outputs);
  };
  variant.backward = [inner = variant.backward, corrupt_grads](const BackwardCall& call) {
    inner(call);
    if (corrupt_grads) corrupt_grads(call.grads);
  };
  return variant;
}

TEST_F(ChecksOnCpu, AWrongGradientFailsAndIsNamed) {
  const OpSpec& op = testing::op_named("rwkv6");
  const Variant variant = broken(op, nullptr, [](TensorMap& grads) {
    float* dw = grads.at("dw").as<float>();
    for (std::int64_t i = 0; i < grads.at("dw").numel(); ++i) dw[i] *= 1.01f;  // a 1% error
  });
  const CheckRecord check =
      run_check(*device, op, variant, testing::small_problem(op, 1, 9, 2, 8, 8), Mode::fwdbwd, 0);
  EXPECT_FALSE(check.passed);
  for (const TensorCheckRecord& t : check.tensors) EXPECT_EQ(t.passed, t.tensor != "dw") << t.tensor;
  EXPECT_EQ(check_summary(check).rfind("FAIL dw 1.0e-02 > 1.0e-05", 0), 0u) << check_summary(check);
}

// A forward wrong only when it saves nothing for a backward (another path, as simple_gla's chunk takes) fails
// the fwd+bwd check under the inference forward's name, and leaves the saving forward's outputs passing.
TEST_F(ChecksOnCpu, AnInferenceOnlyFaultFailsTheForwardBackwardCheck) {
  const OpSpec& op = testing::op_named("gla");
  Variant variant = make_reference_variant(op);
  variant.name = "broken";
  variant.forward = [inner = variant.forward](const ForwardCall& call) {
    inner(call);
    if (call.save_for_backward) return;
    float* o = call.outputs.at("o").as<float>();
    for (std::int64_t i = 0; i < call.outputs.at("o").numel(); ++i) o[i] *= 1.01f;
  };
  const CheckRecord check =
      run_check(*device, op, variant, testing::small_problem(op, 1, 9, 2, 8, 8), Mode::fwdbwd, 0);
  EXPECT_FALSE(check.passed);
  for (const TensorCheckRecord& t : check.tensors)
    EXPECT_EQ(t.passed, t.tensor != "o (inference)") << t.tensor;
}

// A final state and the initial state's gradient are fp32 from 16-bit inputs too: one bf16 rounding on their
// path (as the chunk scans' operand had before chunk version 51) fails them, though it is far within the
// outputs' and gradients' bf16 thresholds (`bar`).
void round_through_bf16(Tensor& state) {
  float* x = state.as<float>();
  for (std::int64_t i = 0; i < state.numel(); ++i) x[i] = round_to_dtype(DType::bf16, x[i]);
}
void expect_only_the_state_fails(const CheckRecord& check, const std::string& state, double bar) {
  EXPECT_FALSE(check.passed);
  for (const TensorCheckRecord& t : check.tensors) {
    EXPECT_EQ(t.passed, t.tensor != state) << t.tensor;
    if (t.tensor == state) {
      EXPECT_EQ(t.threshold, 1e-4);
      EXPECT_LT(t.rms_ratio, bar) << "only the states' threshold catches it";
    }
  }
}

TEST_F(ChecksOnCpu, AFinalStateWithBf16RoundingFailsInBf16) {
  const OpSpec& op = testing::op_named("gla");
  const Variant variant = broken(
      op, [](TensorMap& out) { round_through_bf16(out.at("ht")); }, nullptr);
  expect_only_the_state_fails(
      run_check(*device, op, variant, testing::small_problem(op, 1, 9, 2, 8, 8, DType::bf16), Mode::fwd, 0),
      "ht", 5e-3);
}

TEST_F(ChecksOnCpu, AnInitialStateGradientWithBf16RoundingFailsInBf16) {
  const OpSpec& op = testing::op_named("rwkv6");
  const Variant variant = broken(op, nullptr, [](TensorMap& grads) { round_through_bf16(grads.at("dh0")); });
  expect_only_the_state_fails(
      run_check(*device, op, variant, testing::small_problem(op, 1, 9, 2, 8, 8, DType::bf16), Mode::fwdbwd,
                0),
      "dh0", 6e-3);
}

TEST_F(ChecksOnCpu, AnOutputElementNeverWrittenShowsAsNaN) {
  const OpSpec& op = testing::op_named("gla");
  // Restores the poison the check filled the last element of o with: as if the kernel skipped it.
  const Variant variant = broken(
      op,
      [](TensorMap& out) {
        Tensor& o = out.at("o");
        reinterpret_cast<std::uint16_t*>(o.data)[o.numel() - 1] = 0xFFFF;
      },
      nullptr);
  const CheckRecord check =
      run_check(*device, op, variant, testing::small_problem(op, 1, 9, 2, 8, 8, DType::bf16), Mode::fwd, 0);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check_summary(check), "FAIL o has 1 NaN/Inf");
}

}  // namespace
}  // namespace flabench
