// Run-time values made compile-time ones: with_one_of picks the instantiation a variant launches (a wrong
// pick runs a kernel for another chunk size or head dim), for_each_constant gives unrolled loops their
// constant indices (the fused forward's checkpoint bursts: a missed or repeated index would leave part of
// a checkpoint unwritten or written twice); value_of lets one function take either kind of value.
#include <gtest/gtest.h>

#include <array>
#include <type_traits>
#include <vector>

#include "kernels/common/constant_dispatch.h"

namespace flabench {
namespace {

TEST(ConstantDispatch, WithOneOfCallsOnceWithTheMatchingValue) {
  for (const int value : {16, 32, 64}) {
    std::vector<int> seen;
    with_one_of<16, 32, 64>(value, [&](auto constant) { seen.push_back(decltype(constant)::value); });
    EXPECT_EQ(seen, std::vector<int>{value});
  }
}

TEST(ConstantDispatch, WithOneOfFallsBackToTheLastValue) {
  std::vector<int> seen;
  with_one_of<16, 32, 64>(48, [&](auto constant) { seen.push_back(decltype(constant)::value); });
  EXPECT_EQ(seen, std::vector<int>{64});
}

// value_of reads a run-time value and a constant alike (decayed_scores_of_warp's warp and flags), and a
// constant's value stays a constant expression.
TEST(ConstantDispatch, ValueOfReadsRunTimeValuesAndConstantsAlike) {
  EXPECT_EQ(value_of(3), 3);
  EXPECT_EQ(value_of(false), false);
  static_assert(value_of(std::integral_constant<int, 2>{}) == 2);
  static_assert(value_of(std::bool_constant<true>{}));
  int picked = -1;
  with_one_of<0, 1, 2, 3>(2, [&](auto warp) { picked = value_of(warp); });
  EXPECT_EQ(picked, 2);
}

TEST(ConstantDispatch, ForEachConstantVisitsEveryIndexOnceInOrder) {
  std::vector<int> seen;
  for_each_constant<8>([&](auto index) {
    constexpr int i = decltype(index)::value;  // usable where only a constant will do
    std::array<int, i + 1> sized{};
    seen.push_back(static_cast<int>(sized.size()) - 1);
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));

  int calls = 0;
  for_each_constant<0>([&](auto) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace flabench
