// What every op declares: registration, shapes, FLOPs and the byte floor.
#include <gtest/gtest.h>

#include "kernels/registry.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

TEST(Registry, EveryOpHasTheReferenceAndANaiveVariant) {
  const Registry& registry = product_registry();
  std::vector<std::string> names;
  for (const OpSpec* op : registry.ops()) {
    names.push_back(op->name);
    const Variant* reference = registry.find_variant(op->name, "reference");
    const Variant* naive = registry.find_variant(op->name, "naive");
    ASSERT_TRUE(reference && naive) << op->name;
    EXPECT_EQ(reference->backend, Backend::cpu);
    EXPECT_EQ(naive->backend, Backend::cuda);
    EXPECT_TRUE(naive->support.backward);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"rwkv6", "rwkv7", "gla", "simple_gla", "gsa"}));
}

TEST(Registry, RejectsDuplicatesAndOrphans) {
  Registry registry;
  OpSpec op;
  op.name = "toy";
  registry.add_op(op);
  EXPECT_THROW(registry.add_op(op), std::logic_error);
  Variant variant;
  variant.op = "missing";
  variant.name = "v";
  EXPECT_THROW(registry.add_variant(variant), std::logic_error);
}

// The byte floor of shared/anchors/peer-fla-h100.md: rwkv7 B8 T1024 H8 D64 in bf16 moves 7 tensors of
// 8 Mi elements forward (0.020 ms at 3.0 TB/s) and 21 forward + backward, plus our fp32 states.
TEST(ByteFloor, CountsEachTensorOnce) {
  const OpSpec& op = testing::op_named("rwkv7");
  const Problem p = testing::small_problem(op, 8, 1024, 8, 64, 64, DType::bf16);
  const double tensor = 8.0 * 1024 * 8 * 64 * 2, state = 8.0 * 8 * 64 * 64 * 4;
  EXPECT_DOUBLE_EQ(floor_bytes(op, p, Mode::fwd), 7 * tensor + 2 * state);
  // backward: inputs again (6 + h0), o, do, dht, and one gradient per input (6 + dh0)
  EXPECT_DOUBLE_EQ(floor_bytes(op, p, Mode::fwdbwd), 21 * tensor + 5 * state);
  EXPECT_NEAR(7 * tensor / 3.0e12 * 1e3, 0.020, 0.0005);
}

TEST(ByteFloor, PerHeadGateIsSmall) {
  const OpSpec& op = testing::op_named("simple_gla");
  const Problem p = testing::small_problem(op, 1, 100, 2, 64, 32, DType::fp16);
  const double keys = 100.0 * 2 * 64 * 2, values = 100.0 * 2 * 32 * 2, gate = 100.0 * 2 * 2,
               state = 2.0 * 64 * 32 * 4;
  EXPECT_DOUBLE_EQ(floor_bytes(op, p, Mode::fwd), 2 * keys + 2 * values + gate + 2 * state);
}

TEST(Flops, BackwardCountsTwiceTheForward) {
  for (const OpSpec* op : product_registry().ops()) {
    const Problem p = testing::small_problem(*op, 2, 10, 3, 8, 4);
    EXPECT_GT(case_flops(*op, p, Mode::fwd), 0) << op->name;
    EXPECT_DOUBLE_EQ(case_flops(*op, p, Mode::fwdbwd), 3 * case_flops(*op, p, Mode::fwd)) << op->name;
  }
  const OpSpec& rwkv7 = testing::op_named("rwkv7");
  EXPECT_DOUBLE_EQ(case_flops(rwkv7, testing::small_problem(rwkv7, 1, 1, 1, 2, 3), Mode::fwd), 9 * 6);
}

TEST(Inputs, FollowTheOpsDistributionsAndDtypes) {
  const OpSpec& op = testing::op_named("rwkv7");
  const Problem p = testing::small_problem(op, 2, 50, 2, 16, 8, DType::bf16);
  const HostValuesMap in = make_input_values(op, p, 0);
  for (float w : in.at("w").values) EXPECT_TRUE(w < 0 && w >= -0.6066f);
  for (float x : in.at("r").values) EXPECT_EQ(x, round_to_dtype(DType::bf16, x));
  EXPECT_EQ(in.at("h0").dtype, DType::fp32);
  // a = -kk with kk unit-norm per (token, head): sum of squares is 1 up to bf16 rounding
  double norm = 0;
  for (int i = 0; i < 16; ++i) norm += in.at("a").values[i] * in.at("a").values[i];
  EXPECT_NEAR(norm, 1.0, 0.02);
  // same seed, same values; another seed, other values
  EXPECT_EQ(make_input_values(op, p, 0).at("k").values, in.at("k").values);
  EXPECT_NE(make_input_values(op, p, 1).at("k").values, in.at("k").values);
}

}  // namespace
}  // namespace flabench
