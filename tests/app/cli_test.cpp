// The fla-bench command as a user runs it: exit codes, one-line errors, and a cpu run end to end.
#include <gtest/gtest.h>
#include <unistd.h>

#include "results/result_file.h"
#include "tests/app/cli_support.h"

namespace flabench {
namespace {

using namespace testing;

TEST(Cli, BadInputIsOneLineAndExitStatusTwo) {
  expect_usage_error("--device cpu --axis X=1", "unknown axis 'X'");
  expect_usage_error("--device cpu --axis T=-5", "--axis T=-5: value -5 is not allowed");
  expect_usage_error("--device cpu --axis D=0", "--axis D=0: value 0 is not allowed");
  expect_usage_error("--device cpu --filter 'rwkv7('", "--filter: invalid regular expression");
  expect_usage_error("--device cpu --filter no-such-case", "no case matches --filter 'no-such-case'");
  expect_usage_error("--device gpu0", "--device: 'gpu0' is not a device");
  expect_usage_error("--device cuda:99", "--device cuda:99: ");
  expect_usage_error("--device cpu --filter gla --out /nonexistent-dir/run.json",
                     "--out: /nonexistent-dir/run.json");
  expect_usage_error("--device cpu --preset nope", "--preset: unknown preset 'nope'");
  expect_usage_error("--bogus", "fla-bench: error:");
  expect_usage_error("--min-time=-1", "--min-time: '-1' is not a positive number of seconds");
  expect_usage_error("--bandwidth=0", "--bandwidth: '0' is not a positive bandwidth in GB/s");
  expect_usage_error("list extra-argument", "fla-bench: error:");
}

TEST(Cli, ListShowsCasesAndSkipReasons) {
  const Outcome o =
      fla_bench("list --device cpu --filter '^gla/' --axis D=128 --axis T=24576 --axis B=1 --axis H=1");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("gla/reference/fwd/bf16/B1-T24576-H1-K128-V128"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("skipped: the fp64 reference backward keeps every state"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("6 cases (3 run, 3 skipped)"), std::string::npos) << o.out;
  EXPECT_NE(fla_bench("list --presets").out.find("B1_T24576_H16_D64"), std::string::npos);
}

TEST(Cli, CpuRunWritesAValidResultFile) {
  const fs::path path = fs::temp_directory_path() / ("cli-run-" + std::to_string(::getpid()) + ".json");
  const Outcome o =
      fla_bench("--device cpu --filter '^simple_gla/' --min-time 0.01 --min-samples 3 --out " + path.string(),
                "FLA_AB_PROBE=7 UNRELATED_PROBE=1");
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  const ResultFile file = read_result_file(path);
  fs::remove(path);
  EXPECT_TRUE(file.complete);
  EXPECT_EQ(file.context.device.backend, "cpu");
  EXPECT_EQ(file.context.command_line.back(), path.string());
  // fla-bench's switches are recorded, other variables are not
  EXPECT_EQ(file.context.environment.at("FLA_AB_PROBE"), "7");
  EXPECT_FALSE(file.context.environment.contains("UNRELATED_PROBE"));
  ASSERT_EQ(file.cases.size(), 12u);  // 2 cpu shapes x 3 dtypes x 2 modes
  for (const CaseRecord& c : file.cases) {
    EXPECT_EQ(c.status, CaseStatus::ok) << c.name << ": " << c.reason;
    ASSERT_TRUE(c.timing && c.check && c.derived) << c.name;
    EXPECT_GE(c.timing->samples, 3);
    EXPECT_TRUE(c.check->passed);
    EXPECT_GT(c.derived->floor_pct, 0);
  }
  EXPECT_NE(o.out.find("12 cases: 12 ok, 0 failed, 0 skipped"), std::string::npos) << o.out;
}

TEST(Cli, CheckRunsTheBatteryAndWritesEveryFamily) {
  const fs::path path = fs::temp_directory_path() / ("cli-check-" + std::to_string(::getpid()) + ".json");
  const Outcome o =
      fla_bench("check --device cpu --filter '^[a-z]+/gla/.*/bf16/' --seed 5 --out " + path.string());
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  const ResultFile file = read_result_file(path);
  fs::remove(path);
  ASSERT_EQ(file.cases.size(), 37u);  // the cpu reference variant's families; no cross pairs with one variant
  for (const CaseRecord& c : file.cases) {
    EXPECT_FALSE(c.timing);
    ASSERT_TRUE(c.check) << c.name;
    EXPECT_TRUE(c.check->passed) << c.name;
    EXPECT_EQ(c.name.substr(0, c.family.size() + 1), c.family + "/");
  }
  EXPECT_FALSE(file.context.settings.time);
  EXPECT_EQ(file.context.settings.seed, 5u);
  EXPECT_NE(o.out.find("decay          3       0        0"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("37 cases: 37 ok, 0 failed, 0 skipped"), std::string::npos) << o.out;
}

TEST(Cli, CheckListsTheBatteryAndRefusesBenchmarkAxes) {
  const Outcome o = fla_bench("check --device cpu --list --filter '^state/rwkv7/.*/fp16/'");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("state/rwkv7/reference>reference/fwd/fp16/B2-T65-H2-K64-V32/prefill40\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("state/rwkv7/reference>reference/fwd/fp16/B1-T2109-H2-K64-V64/prefill2048_decode\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("state/rwkv7/reference/fwdbwd/fp16/B2-T65-H2-K64-V32/large_state\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("state/rwkv7/reference/fwdbwd/fp16/B2-T65-H2-K64-V32/large_state_gradient\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("state/rwkv7/reference/fwdbwd/fp16/B2-T65-H2-K64-V32/large_state_small_loss\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("10 checks"), std::string::npos) << o.out;
  expect_usage_error("check --device cpu --axis T=64", "--axis and --preset do not apply");
  expect_usage_error("check --device cpu --filter '^nothing'", "no check matches --filter '^nothing'");
  expect_usage_error("check --device cpu --filter '('", "--filter: invalid regular expression");
}

TEST(Cli, ProfileRecordsWhyCountersAreMissingAndKeepsTiming) {
  const fs::path path = fs::temp_directory_path() / ("cli-profile-" + std::to_string(::getpid()) + ".json");
  const Outcome o = fla_bench(
      "profile --device cpu --filter 'rwkv6/reference/fwd/bf16/B1' --min-time 0.01 --out " + path.string());
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  EXPECT_NE(o.err.find("counters unavailable: the cpu backend has no GPU counters; timing goes on"),
            std::string::npos)
      << o.err;
  const ResultFile file = read_result_file(path);
  fs::remove(path);
  ASSERT_FALSE(file.cases.empty());
  for (const CaseRecord& c : file.cases) {
    EXPECT_TRUE(c.timing) << c.name;
    ASSERT_TRUE(c.counters) << c.name;
    EXPECT_FALSE(c.counters->available);
    EXPECT_NE(c.counters->reason, "");
  }
  expect_usage_error("profile --device cpu --metrics fastest", "--metrics: 'fastest' is neither a set");
}

TEST(Cli, ProfileOnceRunsEachCaseOnceWithoutTiming) {
  const fs::path path = fs::temp_directory_path() / ("cli-once-" + std::to_string(::getpid()) + ".json");
  const Outcome o =
      fla_bench("--device cpu --filter 'gla/reference/fwdbwd/fp32' --profile-once --out " + path.string());
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  const ResultFile file = read_result_file(path);
  fs::remove(path);
  ASSERT_FALSE(file.cases.empty());
  for (const CaseRecord& c : file.cases) {
    EXPECT_EQ(c.status, CaseStatus::ok);
    EXPECT_FALSE(c.timing);
    EXPECT_FALSE(c.check);
  }
  EXPECT_FALSE(file.context.settings.time);
  EXPECT_FALSE(file.context.settings.check);
}

}  // namespace
}  // namespace flabench
