// --shard I/N: disjoint, complete, deterministic and balanced slices of a selection.
#include "suites/shards.h"

#include <gtest/gtest.h>

#include <map>

#include "suites/usage_error.h"

namespace flabench {
namespace {

std::vector<Case> full_gpu_selection() {
  SuiteSpec spec;
  spec.shapes = resolve_presets("peer,fla");
  spec.backend = Backend::cuda;
  spec.limits = {227 * 1024, 90};
  return expand_cases(product_registry(), spec);
}

TEST(Shards, EveryCaseLandsInExactlyOneShardForOneToSevenShards) {
  const std::vector<Case> all = full_gpu_selection();
  ASSERT_GT(all.size(), 100u);
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < all.size(); ++i) position[all[i].name] = i;
  for (int count = 1; count <= 7; ++count) {
    std::map<std::string, int> seen;
    std::vector<double> loads;
    double largest_case = 0;
    for (const Case& c : all) largest_case = std::max(largest_case, expected_cost(c));
    for (int index = 1; index <= count; ++index) {
      const std::vector<Case> slice = shard_cases(all, {index, count});
      double load = 0;
      for (const Case& c : slice) {
        ++seen[c.name];
        load += expected_cost(c);
      }
      loads.push_back(load);
      // in the selection's order, and the same slice every time
      for (std::size_t i = 1; i < slice.size(); ++i)
        EXPECT_LT(position[slice[i - 1].name], position[slice[i].name]);
      const std::vector<Case> again = shard_cases(all, {index, count});
      ASSERT_EQ(again.size(), slice.size());
      for (std::size_t i = 0; i < slice.size(); ++i) EXPECT_EQ(again[i].name, slice[i].name);
    }
    EXPECT_EQ(seen.size(), all.size()) << count << " shards";
    for (const auto& [name, times] : seen) EXPECT_EQ(times, 1) << name << " in " << count << " shards";
    const auto [lightest, heaviest] = std::minmax_element(loads.begin(), loads.end());
    EXPECT_LE(*heaviest - *lightest, largest_case) << count << " shards: balanced within one case";
  }
}

TEST(Shards, CostFollowsTheWork) {
  const std::vector<Case> all = full_gpu_selection();
  const auto cost_of = [&](const std::string& name) {
    for (const Case& c : all)
      if (c.name == name) return expected_cost(c);
    return -1.0;
  };
  EXPECT_GT(cost_of("gla/naive/fwdbwd/bf16/B1-T24576-H16-K64-V64"),
            cost_of("gla/naive/fwd/bf16/B1-T24576-H16-K64-V64"));
  EXPECT_GT(cost_of("gla/naive/fwd/bf16/B1-T24576-H16-K64-V64"),
            cost_of("gla/naive/fwd/bf16/B8-T1024-H8-K64-V64"));
  EXPECT_GE(cost_of("gla/naive/fwd/bf16/B8-T1024-H8-K64-V64"), 1.0);  // every timed case costs its min-time
}

TEST(Shards, BadSpecsAreUsageErrorsAndTheDigestFollowsTheSelection) {
  EXPECT_EQ(parse_shard("2/4").index, 2);
  EXPECT_EQ(parse_shard("2/4").count, 4);
  for (const char* bad : {"0/4", "5/4", "2", "2/0", "a/b", "2/4x", "-1/3"})
    EXPECT_THROW(parse_shard(bad), UsageError) << bad;
  const std::vector<Case> all = full_gpu_selection();
  const std::vector<Case> fewer(all.begin(), all.end() - 1);
  EXPECT_EQ(selection_digest(all), selection_digest(full_gpu_selection()));
  EXPECT_NE(selection_digest(all), selection_digest(fewer));
  EXPECT_EQ(selection_digest(all).size(), 16u);
}

}  // namespace
}  // namespace flabench
