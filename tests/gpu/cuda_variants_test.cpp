// Every CUDA variant against the fp64 reference, through the suite's own check, forward and backward (forward
// alone for a variant without a backward), on awkward shapes: T = 1, T around the 16-token chunks and the
// 64-token checkpoints, K != V both ways, and the longer sequences the chunk issues name (1000, 4096); gsa
// with 32 slots (K != M) and two query heads per key/value head; every chunk size of a chunked variant.
// Shapes a variant declares unsupported are skipped by name. Without a GPU every test skips, saying why.
#include <gtest/gtest.h>

#include "suites/checks.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

struct Shape {
  std::int64_t B, T, H, K, V;
};

Problem gpu_problem(const OpSpec& op, const Shape& s, DType dtype) {
  Problem p = testing::small_problem(op, s.B, s.T, s.H, s.K, s.V, dtype);
  if (!op.slots.empty()) p.M = 32;  // the smallest the fused kernel takes; 4 (the cpu tests') is too few
  return p;
}

// Every chunk size a chunked variant takes; {0} for the others.
std::vector<int> chunk_sizes(const Variant& variant) {
  return variant.support.chunk_sizes.empty() ? std::vector<int>{0} : variant.support.chunk_sizes;
}

Mode widest_mode(const Variant& variant) {
  return variant.support.backward ? Mode::fwdbwd : Mode::fwd;
}

const Shape kShapes[] = {{2, 1, 2, 64, 64},  {1, 15, 3, 64, 16},   {2, 16, 2, 16, 64},  {1, 17, 2, 32, 32},
                         {1, 63, 3, 64, 16}, {2, 64, 2, 64, 64},   {2, 65, 2, 16, 64},  {1, 130, 2, 128, 128},
                         {1, 40, 1, 32, 48}, {1, 1000, 2, 64, 64}, {1, 4096, 1, 64, 64}};

class CudaVariant : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_device_count(why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
    device = open_cuda_device(0);
  }
  std::unique_ptr<Device> device;
};

TEST_P(CudaVariant, MatchesTheReferenceForwardAndBackward) {
  const auto& [op_name, variant_name] = GetParam();
  const OpSpec& op = testing::op_named(op_name);
  const Variant& variant = *product_registry().find_variant(op_name, variant_name);
  int checked = 0;
  for (const Shape& s : kShapes)
    for (DType dtype : kAllDTypes)
      for (int chunk_size : chunk_sizes(variant)) {
        Problem p = gpu_problem(op, s, dtype);
        p.chunk_size = chunk_size;
        const std::string at = op.name + "/" + variant.name + " " + std::string(dtype_name(dtype)) + " " +
                               shape_label(p) + (chunk_size ? " C" + std::to_string(chunk_size) : "");
        if (auto reason = why_unsupported(variant, p, widest_mode(variant), device->limits())) {
          std::cout << "  not supported: " << at << ": " << *reason << "\n";
          continue;
        }
        CheckRecord check;
        try {
          check = run_check(*device, op, variant, p, widest_mode(variant), 3);
        } catch (const std::exception& e) {  // a CUDA error poisons the context: name the shape and stop
          FAIL() << at << ": " << e.what();
        }
        EXPECT_TRUE(check.passed) << at << ": " << check_summary(check);
        ++checked;
      }
  EXPECT_GE(checked, 3 * 7) << "too few shapes supported to mean anything";
}

// The whole 24,576-token sequence of the peer shapes, checked unshortened: errors that grow with T show here.
TEST_P(CudaVariant, HoldsOverTheLongestSequence) {
  const auto& [op_name, variant_name] = GetParam();
  if (variant_name != "fused_recurrent")
    GTEST_SKIP() << "the long check runs for fused_recurrent only (device time)";
  const OpSpec& op = testing::op_named(op_name);
  const Variant& variant = *product_registry().find_variant(op_name, variant_name);
  for (DType dtype : {DType::bf16, DType::fp32}) {
    const Problem p = gpu_problem(op, {1, 24576, 1, 64, 64}, dtype);
    const CheckRecord check = run_check(*device, op, variant, p, widest_mode(variant), 4);
    EXPECT_TRUE(check.passed) << op.name << " " << dtype_name(dtype) << ": " << check_summary(check);
    double worst = 0;
    for (const TensorCheckRecord& t : check.tensors) worst = std::max(worst, t.rms_ratio);
    std::cout << "  " << op.name << "/" << variant.name << " " << dtype_name(dtype)
              << " T=24576: worst rms ratio " << worst << " (" << check_summary(check) << ")\n";
  }
}

std::vector<std::tuple<std::string, std::string>> cuda_variants() {
  std::vector<std::tuple<std::string, std::string>> all;
  for (const OpSpec* op : product_registry().ops())
    for (const Variant* variant : product_registry().variants_of(op->name))
      if (variant->backend == Backend::cuda) all.emplace_back(op->name, variant->name);
  return all;
}

INSTANTIATE_TEST_SUITE_P(All, CudaVariant, ::testing::ValuesIn(cuda_variants()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

}  // namespace
}  // namespace flabench
