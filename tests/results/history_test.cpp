// Step detection over nightly runs, the store layout, and the history's JSON form.
#include "results/history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "results/json_format.h"
#include "tests/results/fixture_runs.h"
#include "tests/results/xz_fixture.h"

namespace flabench {
namespace {

namespace fs = std::filesystem;

std::vector<std::optional<double>> series(std::initializer_list<double> values) {
  return {values.begin(), values.end()};
}

TEST(History, NightToNightNoiseIsNotAStep) {
  // +-2% jitter, as these GPUs show between runs on different machines
  EXPECT_TRUE(detect_steps(series({5.00, 5.08, 4.95, 5.02, 4.99, 5.10, 4.93, 5.05, 5.00, 4.97}), {}).empty());
}

TEST(History, AStepIsConfirmedByTheNextRunAndStartsANewBaseline) {
  const auto flags = detect_steps(series({5.0, 5.05, 4.98, 5.02, 5.5, 5.52, 5.49, 5.51, 5.5}), {});
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].run, 4u);
  EXPECT_TRUE(flags[0].slower);
  EXPECT_EQ(flags[0].kind, FlagKind::step);
  EXPECT_NEAR(flags[0].change_pct, 10, 0.5);
}

TEST(History, ASpikeIsNamedAndLeftOutOfLaterBaselines) {
  const auto flags = detect_steps(series({5.0, 5.05, 4.98, 5.02, 6.5, 5.01, 4.99, 5.03}), {});
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].run, 4u);
  EXPECT_EQ(flags[0].kind, FlagKind::spike);
}

TEST(History, TheNewestRunIsFlaggedUnconfirmedAndGapsAreSkipped) {
  const auto flags = detect_steps({5.0, std::nullopt, 5.02, 4.99, 5.01, std::nullopt, 4.2}, {});
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].run, 6u);
  EXPECT_FALSE(flags[0].slower);
  EXPECT_EQ(flags[0].kind, FlagKind::unconfirmed);
  // too little history to judge: no flag
  EXPECT_TRUE(detect_steps(series({5.0, 6.0}), {}).empty());
}

class HistoryStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("fla-history-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // A finished result file of one nightly run, written where a run writes it.
  fs::path write_run(int night, double regressed_ms, const std::string& device = "NVIDIA H100 80GB HBM3") {
    const std::string day = std::to_string(10 + night);
    JsonFileReporter file(dir / ("run" + day + ".json"));
    RunContext context = testing::sample_context();
    context.device.name = device;
    context.started_utc = "2026-11-" + day + "T02:00:00Z";
    context.git_sha = std::string(40, static_cast<char>('a' + night % 6));
    file.begin(context);
    file.record(testing::timed_case("gla/naive/fwd/bf16/B8-T1024-H8-K64-V64",
                                    testing::samples_around(regressed_ms, 0.01, 50, night)));
    file.record(testing::timed_case("gla/naive/fwd/fp16/B8-T1024-H8-K64-V64",
                                    testing::samples_around(3.0, 0.01, 50, 100 + night)));
    file.end({2, 2, 0, 0, 1});
    return file.path();
  }

  fs::path dir;
};

TEST_F(HistoryStore, FilesRunsByGpuStartAndCommitAndFindsTheNewestStep) {
  const fs::path store = dir / "history";
  for (int night = 0; night < 6; ++night) {
    const fs::path filed = add_to_history(store, write_run(night, night < 5 ? 5.0 : 5.6));
    EXPECT_EQ(filed.parent_path(), store / "nvidia-h100-80gb-hbm3");
    if (night == 0) {
      EXPECT_EQ(filed.filename(), "20261110T020000Z-aaaaaaaaaaaa.json");
    }
  }
  EXPECT_NO_THROW(
      add_to_history(store, store / "nvidia-h100-80gb-hbm3" / "20261110T020000Z-aaaaaaaaaaaa.json"));

  const History history = analyse_history(store / "nvidia-h100-80gb-hbm3", {}, 0);
  ASSERT_EQ(history.runs.size(), 6u);
  EXPECT_EQ(history.runs.front().started_utc, "2026-11-10T02:00:00Z");
  ASSERT_EQ(history.cases.size(), 2u);
  const auto regressed = history.regressed_at_newest();
  ASSERT_EQ(regressed.size(), 1u);
  EXPECT_EQ(regressed[0]->name, "gla/naive/fwd/bf16/B8-T1024-H8-K64-V64");

  const nlohmann::json j = history_json(history);
  EXPECT_EQ(j.at("schema"), "fla-bench-history");
  EXPECT_EQ(j.at("runs").size(), 6u);
  EXPECT_EQ(j.at("cases").at(0).at("flags").at(0).at("kind"), "unconfirmed");
  EXPECT_EQ(j.at("cases").at(0).at("flags").at(0).at("run"), 5);
  EXPECT_EQ(j.at("cases").at(0).at("medians_ms").size(), 6u);

  EXPECT_EQ(analyse_history(store / "nvidia-h100-80gb-hbm3", {}, 3).runs.size(), 3u);
}

TEST_F(HistoryStore, RefusesMixedGpusAndUnfinishedRuns) {
  const fs::path mixed = dir / "mixed";
  fs::create_directories(mixed);
  fs::copy_file(write_run(0, 5.0), mixed / "a.json");
  fs::copy_file(write_run(1, 5.0, "NVIDIA H200"), mixed / "b.json");
  EXPECT_THROW(analyse_history(mixed, {}, 0), ResultFileError);

  {
    JsonFileReporter unfinished(dir / "crashed.json");
    unfinished.begin(testing::sample_context());
  }
  EXPECT_THROW(add_to_history(dir / "store", partial_path(dir / "crashed.json")), ResultFileError);
  EXPECT_EQ(device_slug("NVIDIA GeForce RTX 4070 Ti"), "nvidia-geforce-rtx-4070-ti");
}

TEST_F(HistoryStore, FilesACompressedRunAsPlainJson) {
  const fs::path run = write_run(0, 5.0);
  std::string text;
  {
    std::ifstream in(run, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(dir / "run.json.xz", std::ios::binary) << testing::xz_compressed(text);
  const fs::path filed = add_to_history(dir / "store", dir / "run.json.xz");
  std::ifstream in(filed, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), text);
  EXPECT_EQ(add_to_history(dir / "store", run), filed);  // the same run, plain: filed before
}

}  // namespace
}  // namespace flabench
