// The naive CUDA variants against the fp64 reference, through the suite's own check, on awkward shapes:
// T = 1, T not a multiple of the checkpoint interval, K != V both ways. Skipped, saying why, without a GPU.
#include <gtest/gtest.h>

#include "suites/checks.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

struct Shape {
  std::int64_t B, T, H, K, V;
};

class NaiveOnGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_device_count(why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
    device = open_cuda_device(0);
  }
  std::unique_ptr<Device> device;
};

TEST_P(NaiveOnGpu, MatchesTheReferenceForwardAndBackward) {
  const OpSpec& op = testing::op_named(GetParam());
  const Variant& naive = *product_registry().find_variant(op.name, "naive");
  for (const Shape& s : {Shape{2, 1, 2, 64, 64}, Shape{1, 63, 3, 64, 16}, Shape{2, 65, 2, 16, 64},
                         Shape{1, 130, 2, 128, 128}, Shape{1, 40, 1, 32, 48}})
    for (DType dtype : kAllDTypes) {
      const Problem p = testing::small_problem(op, s.B, s.T, s.H, s.K, s.V, dtype);
      const CheckRecord check = run_check(*device, op, naive, p, Mode::fwdbwd, 3);
      EXPECT_TRUE(check.passed) << op.name << " " << dtype_name(dtype) << " " << check.shape << ": "
                                << check_summary(check);
    }
}

INSTANTIATE_TEST_SUITE_P(AllOps, NaiveOnGpu, ::testing::Values("rwkv6", "rwkv7", "gla", "simple_gla"));

}  // namespace
}  // namespace flabench
