// fla-bench merge: shard files of one selection joined, and every way shards can fail to make one whole
// refused.
#include "results/merge.h"

#include <gtest/gtest.h>

#include "tests/results/fixture_runs.h"

namespace flabench {
namespace {

using testing::fixture_run;
using testing::timed_case;

LoadedResult shard(int index, int count, std::vector<std::string> names, std::int64_t selection = 4) {
  std::vector<CaseRecord> cases;
  for (const std::string& name : names) cases.push_back(timed_case(name, {1, 2, 3}));
  LoadedResult run = fixture_run("shard" + std::to_string(index) + ".json", std::move(cases));
  SettingsRecord& s = run.file.context.settings;
  s.shard_index = index, s.shard_count = count, s.selection_cases = selection,
  s.selection_digest = "00ff00ff00ff00ff";
  run.file.summary =
      RunSummary{static_cast<int>(names.size()), static_cast<int>(names.size()), 0, 0, 10.0 * index};
  return run;
}

std::string merge_error(const std::vector<LoadedResult>& shards) {
  try {
    merge_shards(shards, {"fla-bench", "merge"});
  } catch (const ResultFileError& e) {
    return e.what();
  }
  return "merged";
}

TEST(Merge, JoinsCompleteShardsIntoOneRun) {
  const ResultFile merged =
      merge_shards({shard(1, 2, {"a", "b"}), shard(2, 2, {"c", "d"})}, {"fla-bench", "merge"});
  ASSERT_EQ(merged.cases.size(), 4u);
  EXPECT_EQ(merged.cases[2].name, "c");
  EXPECT_TRUE(merged.complete);
  EXPECT_EQ(merged.summary->ok, 4);
  EXPECT_DOUBLE_EQ(merged.summary->wall_s, 20.0);  // the shards ran side by side
  EXPECT_EQ(merged.context.settings.shard_count, 0);
  EXPECT_EQ(merged.context.command_line, (std::vector<std::string>{"fla-bench", "merge"}));
}

// A cluster's array tasks run one selection on GPUs of their own: their CUDA_* variables may differ
// (CUDA_VISIBLE_DEVICES), their switches may not; the whole keeps only what every shard shared.
TEST(Merge, ShardsOnDifferentGpusOfOneRunJoin) {
  LoadedResult first = shard(1, 2, {"a", "b"}), second = shard(2, 2, {"c", "d"});
  first.file.context.environment = {
      {"CUDA_HOME", "/usr/local/cuda"}, {"CUDA_VISIBLE_DEVICES", "0"}, {"FLA_AB_X", "1"}};
  second.file.context.environment = {
      {"CUDA_HOME", "/usr/local/cuda"}, {"CUDA_VISIBLE_DEVICES", "3"}, {"FLA_AB_X", "1"}};
  const ResultFile merged = merge_shards({first, second}, {"fla-bench", "merge"});
  EXPECT_EQ(merged.context.environment,
            (std::map<std::string, std::string>{{"CUDA_HOME", "/usr/local/cuda"}, {"FLA_AB_X", "1"}}));
}

TEST(Merge, RefusesWhatWouldMakeAWrongWhole) {
  EXPECT_EQ(merge_error({shard(1, 2, {"a", "b"})}), "merge: shard 2/2 is missing");
  EXPECT_EQ(merge_error({shard(1, 2, {"a", "b"}), shard(1, 2, {"c", "d"})}),
            "merge: shard 1/2 is given twice (shard1.json)");
  EXPECT_EQ(merge_error({shard(1, 2, {"a", "b"}), shard(2, 2, {"b", "d"})}),
            "merge: case b is in two shards (shard2.json)");
  EXPECT_EQ(merge_error({shard(1, 2, {"a", "b"}), shard(2, 2, {"c"})}),
            "merge: the shards hold 3 cases, the selection 4");

  LoadedResult other_build = shard(2, 2, {"c", "d"});
  other_build.file.context.git_sha = std::string(40, 'f');
  EXPECT_NE(merge_error({shard(1, 2, {"a", "b"}), other_build}).find("differ in build"), std::string::npos);

  LoadedResult other_gpu = shard(2, 2, {"c", "d"});
  other_gpu.file.context.device.name = "NVIDIA A100-SXM4-80GB";
  EXPECT_NE(merge_error({shard(1, 2, {"a", "b"}), other_gpu}).find("differ in GPU model"), std::string::npos);

  LoadedResult other_switch = shard(2, 2, {"c", "d"});  // one binary, a kernel's A/B switch on in one shard
  other_switch.file.context.environment = {{"FLA_AB_PIECES", "4"}};
  EXPECT_NE(merge_error({shard(1, 2, {"a", "b"}), other_switch})
                .find("differ in fla-bench switches (FLA_* variables): none vs FLA_AB_PIECES=4"),
            std::string::npos);

  LoadedResult other_selection = shard(2, 2, {"c", "d"});
  other_selection.file.context.settings.selection_digest = "1111111111111111";
  EXPECT_NE(merge_error({shard(1, 2, {"a", "b"}), other_selection}).find("differ in selection"),
            std::string::npos);

  LoadedResult unfinished = shard(2, 2, {"c", "d"});
  unfinished.file.complete = false;
  EXPECT_NE(merge_error({shard(1, 2, {"a", "b"}), unfinished}).find("unfinished run"), std::string::npos);

  LoadedResult whole = shard(1, 2, {"a", "b"});
  whole.file.context.settings.shard_count = 0;
  EXPECT_NE(merge_error({whole}).find("is not a shard"), std::string::npos);
}

}  // namespace
}  // namespace flabench
