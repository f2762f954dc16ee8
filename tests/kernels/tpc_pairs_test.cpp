#include "kernels/common/tpc_pairs.h"

#include <gtest/gtest.h>

namespace flabench {
namespace {

TEST(TpcPairs, PairAlongXWhereItIsEvenElseAlongY) {
  const ClusterShape x = tpc_pairs(16, 4, 90);
  EXPECT_EQ(x.x, 2u);
  EXPECT_EQ(x.y, 1u);
  EXPECT_TRUE(x.paired());
  const ClusterShape y = tpc_pairs(15, 4, 90);
  EXPECT_EQ(y.x, 1u);
  EXPECT_EQ(y.y, 2u);
  EXPECT_TRUE(y.paired());
}

TEST(TpcPairs, NoClusterWhereNeitherDimensionIsEven) {
  const ClusterShape none = tpc_pairs(15, 3, 90);
  EXPECT_EQ(none.x, 1u);
  EXPECT_EQ(none.y, 1u);
  EXPECT_FALSE(none.paired());
}

TEST(TpcPairs, NoClusterBeforeHopper) {  // an A100 (80) and the RTX 30xx and 40xx (86, 89) have none
  for (int compute_capability : {80, 86, 89}) EXPECT_FALSE(tpc_pairs(16, 4, compute_capability).paired());
  EXPECT_TRUE(tpc_pairs(16, 4, 100).paired());
}

}  // namespace
}  // namespace flabench
