#include "suites/axes.h"

#include <gtest/gtest.h>

#include "suites/usage_error.h"

namespace flabench {
namespace {

using Sizes = std::vector<std::int64_t>;

TEST(Axes, ListsRangesAndPowersOfTwo) {
  const AxisOverrides axes = parse_axes({"T=1024,4096,24576", "B=1:4", "H=2:8:3", "D[pow2]=6:7"});
  EXPECT_EQ(axes.sizes.at("T"), (Sizes{1024, 4096, 24576}));
  EXPECT_EQ(axes.sizes.at("B"), (Sizes{1, 2, 3, 4}));
  EXPECT_EQ(axes.sizes.at("H"), (Sizes{2, 5, 8}));
  EXPECT_EQ(axes.sizes.at("K"), (Sizes{64, 128}));
  EXPECT_EQ(axes.sizes.at("V"), (Sizes{64, 128}));
}

TEST(Axes, DtypesModesAndChunkSizes) {
  const AxisOverrides axes = parse_axes({"dtype=bf16,fp32", "mode=fwdbwd", "chunk_size=16,32,64"});
  EXPECT_EQ(axes.dtypes, (std::vector<DType>{DType::bf16, DType::fp32}));
  EXPECT_EQ(axes.modes, (std::vector<Mode>{Mode::fwdbwd}));
  EXPECT_EQ(axes.chunk_sizes, (std::vector<int>{16, 32, 64}));
}

void expect_usage_error(const std::vector<std::string>& specs, const std::string& fragment) {
  try {
    parse_axes(specs);
    ADD_FAILURE() << "accepted " << specs.front();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

TEST(Axes, BadInputNamesTheArgument) {
  expect_usage_error({"X=3"}, "unknown axis 'X' (known: B, T, H, K, V, D, M, G, C, dtype, mode)");
  expect_usage_error({"T=-5"}, "--axis T=-5: value -5 is not allowed (sizes are >= 1)");
  expect_usage_error({"D=0"}, "--axis D=0: value 0 is not allowed");
  expect_usage_error({"T=abc"}, "'abc' is not an integer");
  expect_usage_error({"T"}, "expected NAME=VALUES");
  expect_usage_error({"T="}, "expected NAME=VALUES");
  expect_usage_error({"T=8:4"}, "range 8:4 is empty");
  expect_usage_error({"T=1:9:0"}, "step must be positive");
  expect_usage_error({"T=1:2:3:4"}, "neither a value nor a range");
  expect_usage_error({"T[pow2]=40"}, "exponents must lie in 0..31");
  expect_usage_error({"dtype=fp8"}, "unknown dtype 'fp8' (allowed: fp32, fp16, bf16)");
  expect_usage_error({"mode=bwd"}, "unknown mode 'bwd'");
  expect_usage_error({"dtype[pow2]=3"}, "[pow2] applies to size axes only");
  expect_usage_error({"T=1", "T=2"}, "axis T is already set");
  expect_usage_error({"D=64", "K=32"}, "axis K is already set by --axis D");
  expect_usage_error({"T=1:100000"}, "more than 4096 values");
}

}  // namespace
}  // namespace flabench
