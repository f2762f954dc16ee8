// The warpgroup products (kernels/common/wgmma/) on the GPU against the same products on the host: every
// operand form the kernels take (A K-major, MN-major or from registers; B K-major or MN-major; each form
// simple_gla's fused forward issues at its widths 32 and 64, and the second half of a 64-column panel as a B
// 32 wide, where its second state buffer lies), the widths 32, 64 and 128, depths that span
// one and two 64-column panels. The values are multiples of 1/16 in
// [-1/2, 1/2], so every product and sum is exact in fp32 and the results must match bit for bit. Without an
// H100 or H200, or in a build without sm_90a code, every test skips, saying why.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/gpu/wgmma_products.h"

namespace flabench::testing {
namespace {

std::vector<float> sixteenths(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(-8, 8);
  std::vector<float> x(n);
  for (float& v : x) v = pick(rng) / 16.0f;
  return x;
}

class WgmmaProduct : public ::testing::TestWithParam<WgmmaCase> {
 protected:
  void SetUp() override {
    if (auto why = why_no_wgmma()) GTEST_SKIP() << *why;
  }
};

TEST_P(WgmmaProduct, MatchesTheHostsProductExactly) {
  const WgmmaCase c = GetParam();
  const auto a = sixteenths(64 * c.depth, 1 + c.n), b = sixteenths(c.depth * c.n, 2 + c.depth);
  const std::vector<float> d = wgmma_product(c, a, b);
  int wrong = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < c.n; ++n) {
      float want = 0;
      for (int k = 0; k < c.depth; ++k) want += a[m * c.depth + k] * b[k * c.n + n];
      const float got = d[m * c.n + n];
      if (got != want && wrong++ < 5)
        ADD_FAILURE() << "D[" << m << "][" << n << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(wrong, 0);
}

std::string name(const ::testing::TestParamInfo<WgmmaCase>& info) {
  const WgmmaCase& c = info.param;
  return "n" + std::to_string(c.n) + "_depth" + std::to_string(c.depth) + "_A" +
         (c.a_in_registers ? "registers"
          : c.a_mn_major   ? "MN"
                           : "K") +
         "_B" + (c.b_mn_major ? "MN" : "K") +
         (c.b_first_column ? "_from" + std::to_string(c.b_first_column) : "");
}

// {n, depth, A MN-major, B MN-major, A in registers, B's first column}
INSTANTIATE_TEST_SUITE_P(
    Forms, WgmmaProduct,
    ::testing::Values(WgmmaCase{64, 64, false, false, false}, WgmmaCase{64, 128, false, false, false},
                      WgmmaCase{32, 128, false, false, false}, WgmmaCase{32, 128, false, true, false},
                      WgmmaCase{32, 64, true, true, false}, WgmmaCase{128, 64, false, false, false},
                      WgmmaCase{64, 128, false, true, false}, WgmmaCase{128, 64, false, true, false},
                      WgmmaCase{64, 128, true, false, false}, WgmmaCase{64, 64, true, true, false},
                      WgmmaCase{32, 64, false, true, true}, WgmmaCase{64, 128, false, true, true},
                      WgmmaCase{128, 128, false, false, true}, WgmmaCase{32, 128, false, true, false, 32}),
    name);

}  // namespace
}  // namespace flabench::testing
