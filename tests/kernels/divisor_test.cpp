// The kernels' index divisor: a shift and a mask for powers of two, the division otherwise, the same
// quotient and remainder either way (the chunk kernels' staging and loops index every tile through it).
#include <gtest/gtest.h>

#include "kernels/common/divisor.cuh"

namespace flabench {
namespace {

TEST(Divisor, GivesTheQuotientAndRemainderOfEveryDivisor) {
  for (int n = 1; n <= 300; ++n) {
    const Divisor divisor(n);
    EXPECT_EQ(divisor.power_of_two, (n & (n - 1)) == 0) << n;
    for (int x = 0; x < 3000; ++x) {
      ASSERT_EQ(divisor.div(x), x / n) << x << " / " << n;
      ASSERT_EQ(divisor.mod(x), x % n) << x << " % " << n;
    }
  }
}

}  // namespace
}  // namespace flabench
