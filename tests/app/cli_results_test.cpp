// compare and history as a user runs them: verdicts, exit codes for CI gating, and one-line errors for bad
// files.
#include <gtest/gtest.h>
#include <unistd.h>

#include "results/result_file.h"
#include "tests/app/cli_support.h"
#include "tests/results/fixture_runs.h"
#include "tests/results/xz_fixture.h"

namespace flabench {
namespace {

using namespace testing;

const std::string kRegressed = "gla/naive/fwd/bf16/B8-T1024-H8-K64-V64";
const std::string kSteady = "gla/naive/fwd/fp16/B8-T1024-H8-K64-V64";

class CliResults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("fla-cli-results-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string write_run(const std::string& name, double regressed_ms, unsigned seed,
                        const std::string& device = "NVIDIA H100 80GB HBM3", int day = 20,
                        const std::map<std::string, std::string>& environment = {}) {
    JsonFileReporter file(dir / name);
    RunContext context = sample_context();
    context.device.name = device;
    context.environment = environment;
    context.started_utc = "2026-11-" + std::to_string(day) + "T02:00:00Z";
    file.begin(context);
    file.record(timed_case(kRegressed, samples_around(regressed_ms, 0.02, 200, seed)));
    file.record(timed_case(kSteady, samples_around(3.0, 0.02, 200, seed + 1000)));
    file.end({2, 2, 0, 0, 1});
    return file.path().string();
  }

  fs::path dir;
};

TEST_F(CliResults, CompareGivesVerdictsAndGatesOnRegressions) {
  const std::string base = write_run("base.json", 5.0, 1), noise = write_run("noise.json", 5.0, 2),
                    regressed = write_run("regressed.json", 5.5, 3);
  Outcome o = fla_bench("compare " + base + " " + noise + " --fail-on-regression");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("2 cases: 0 slower, 0 faster, 2 same"), std::string::npos) << o.out;
  // a baseline kept xz-compressed, as committed ones are, reads as its JSON
  std::ofstream(dir / "base.json.xz", std::ios::binary) << xz_compressed(slurp(base));
  o = fla_bench("compare " + (dir / "base.json.xz").string() + " " + noise);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("2 cases: 0 slower, 0 faster, 2 same"), std::string::npos) << o.out;

  o = fla_bench("compare " + base + " " + regressed);
  EXPECT_EQ(o.status, 0) << "without --fail-on-regression a regression is reported, not fatal";
  o = fla_bench("compare " + base + " " + regressed + " --fail-on-regression --out " +
                (dir / "cmp.json").string());
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("regression: " + kRegressed + " +10."), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("1 slower, 0 faster, 1 same"), std::string::npos) << o.out;
  const std::string written = slurp(dir / "cmp.json");
  EXPECT_NE(written.find("\"schema\": \"fla-bench-compare\""), std::string::npos);
  EXPECT_NE(written.find("\"verdict\": \"slower\""), std::string::npos);

  // a stricter threshold: the same 10% is no longer a regression
  EXPECT_EQ(fla_bench("compare " + base + " " + regressed + " --fail-on-regression --threshold 15%").status,
            0);
  // a filter that leaves only the steady case
  EXPECT_EQ(fla_bench("compare " + base + " " + regressed + " --fail-on-regression --filter fp16").status, 0);
}

TEST_F(CliResults, CompareNamesTheSwitchesEachSideRanWith) {
  // one binary timed against itself under a kernel's A/B switch: the sources say which side had which
  const std::string off = write_run("off.json", 5.0, 1, "NVIDIA H100 80GB HBM3", 20, {{"FLA_AB_X", "0"}}),
                    on = write_run("on.json", 5.0, 2, "NVIDIA H100 80GB HBM3", 20, {{"FLA_AB_X", "1"}});
  Outcome o = fla_bench("compare " + off + " " + on);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("started 2026-11-20T02:00:00Z, with FLA_AB_X=0\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("started 2026-11-20T02:00:00Z, with FLA_AB_X=1\n"), std::string::npos) << o.out;
  o = fla_bench("compare --rounds " + off + " " + on);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("with FLA_AB_X=1"), std::string::npos) << o.out;
}

TEST_F(CliResults, RoundsCountAVerdictOnlyWhereEveryRoundAgrees) {
  // round 1 sees the 10% regression; round 2's base ran slow (drift), so its pair sees none
  const std::string b1 = write_run("r1-base.json", 5.0, 1), n1 = write_run("r1-new.json", 5.5, 2),
                    b2 = write_run("r2-base.json", 5.5, 3), n2 = write_run("r2-new.json", 5.5, 4),
                    b3 = write_run("r3-base.json", 5.0, 5), n3 = write_run("r3-new.json", 5.5, 6);
  Outcome o = fla_bench("compare --rounds " + b1 + " " + n1 + " " + b2 + " " + n2 +
                        " --fail-on-regression --out " + (dir / "rounds.json").string());
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("same (rounds: slower, same)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("2 cases over 2 rounds: 0 slower, 0 faster, 2 same (1 of them where rounds disagree)"),
            std::string::npos)
      << o.out;
  const std::string written = slurp(dir / "rounds.json");
  EXPECT_NE(written.find("\"schema\": \"fla-bench-compare-rounds\""), std::string::npos) << written;
  EXPECT_NE(written.find("\"agreed\": false"), std::string::npos) << written;

  o = fla_bench("compare --rounds " + b1 + " " + n1 + " " + b3 + " " + n3 + " --fail-on-regression");
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("regression: " + kRegressed + " (slower)"), std::string::npos) << o.out;

  expect_usage_error("compare --rounds " + b1 + " " + n1 + " " + b2, "compare --rounds takes BASE NEW pairs");
  expect_usage_error("compare --rounds --across-gpus " + b1 + " " + n1,
                     "--across-gpus or --rounds, not both");
}

TEST_F(CliResults, BadFilesAndArgumentsAreOneLineErrors) {
  const std::string base = write_run("base.json", 5.0, 1);
  std::ofstream(dir / "truncated.json") << slurp(base).substr(0, 300);
  std::ofstream(dir / "future.json") << R"({"schema": "fla-bench-result", "schema_version": "2.0.0"})";
  std::ofstream(dir / "other.json") << R"({"schema": "nvbench", "schema_version": "1.0.0"})";
  expect_usage_error("compare " + base + " " + (dir / "truncated.json").string(),
                     "truncated.json: not valid JSON");
  expect_usage_error("compare " + base + " " + (dir / "future.json").string(),
                     "schema version 2.0.0 cannot be read by this fla-bench (it reads 1.x)");
  expect_usage_error("compare " + base + " " + (dir / "other.json").string(), "not an fla-bench result file");
  const std::string packed = xz_compressed(slurp(base));
  std::ofstream(dir / "cut.json.xz", std::ios::binary) << packed.substr(0, packed.size() / 2);
  expect_usage_error("compare " + base + " " + (dir / "cut.json.xz").string(),
                     "cut.json.xz: truncated xz data");
  expect_usage_error("compare " + base + " " + (dir / "absent.json").string(),
                     "absent.json: no such file or folder");
  expect_usage_error("compare " + base, "At least 2 required");
  expect_usage_error("compare " + base + " " + base + " " + base, "compare takes BASE and NEW, 3 given");
  expect_usage_error("compare " + base + " " + base + " --threshold 5x", "is not a percentage such as 5%");
  expect_usage_error("compare " + base + " " + base + " --filter nothing",
                     "no case matches --filter 'nothing'");
  expect_usage_error("history " + (dir / "empty").string(), "no such file or folder");
}

TEST_F(CliResults, AcrossGpusSetsEachGpuBesideItsOwnFloor) {
  const std::string h100 = write_run("h100.json", 5.0, 1);
  const std::string h200 = write_run("h200.json", 4.0, 2, "NVIDIA H200");
  const Outcome o = fla_bench("compare --across-gpus " + h100 + " " + h200);
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("GPU1: NVIDIA H100 80GB HBM3"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("GPU2: NVIDIA H200"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("2 cases timed on at least two GPUs"), std::string::npos) << o.out;
  // plain compare across GPUs still works, and says the times are from different GPUs
  EXPECT_NE(fla_bench("compare " + h100 + " " + h200).out.find("note: base ran on NVIDIA H100"),
            std::string::npos);
  fs::create_directories(dir / "mixed");
  fs::copy_file(h100, dir / "mixed" / "a.json");
  fs::copy_file(h200, dir / "mixed" / "b.json");
  expect_usage_error("compare --across-gpus " + (dir / "mixed").string() + " " + h100, "mixes devices");
}

TEST_F(CliResults, HistoryFilesNightlyRunsAndFailsOnTheNewestStep) {
  const fs::path store = dir / "history";
  for (int night = 0; night < 5; ++night) {
    const std::string run =
        write_run("night.json", night < 4 ? 5.0 : 5.6, night, "NVIDIA H100 80GB HBM3", 10 + night);
    const Outcome filed = fla_bench("history " + store.string() + " --add " + run);
    ASSERT_EQ(filed.status, 0) << filed.err;
    EXPECT_NE(filed.out.find("filed: " + (store / "nvidia-h100-80gb-hbm3").string()), std::string::npos);
  }
  const std::string folder = (store / "nvidia-h100-80gb-hbm3").string();
  Outcome o = fla_bench("history " + folder + " --out " + (dir / "history.json").string());
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("5 runs of NVIDIA H100 80GB HBM3"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("slower +12."), std::string::npos) << o.out;
  EXPECT_NE(slurp(dir / "history.json").find("\"kind\": \"unconfirmed\""), std::string::npos);
  o = fla_bench("history " + folder + " --fail-on-regression");
  EXPECT_EQ(o.status, 1) << o.out;
  EXPECT_NE(o.out.find("regression: " + kRegressed), std::string::npos) << o.out;
  EXPECT_EQ(fla_bench("history " + folder + " --fail-on-regression --filter fp16").status, 0);
}

TEST_F(CliResults, PlotAndReportRunThePythonScripts) {
  const std::string probe = std::string(FLA_BENCH_PYTHON) + " -c 'import matplotlib' 2>/dev/null";
  if (std::system(probe.c_str()) != 0)
    GTEST_SKIP() << FLA_BENCH_PYTHON << " cannot import matplotlib (apt-get install python3-matplotlib)";
  const std::string h100 = write_run("h100.json", 5.0, 1);
  const std::string h200 = write_run("h200.json", 4.0, 2, "NVIDIA H200");
  const fs::path figures = dir / "figures", report = dir / "report";
  Outcome o = fla_bench("plot " + h100 + " " + h200 + " -o " + figures.string());
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  for (const char* figure : {"gpu_vs_gpu_gla_fwd_bf16", "floor_pct_gla_fwd_fp16", "check_heatmap"}) {
    EXPECT_TRUE(fs::exists(figures / (std::string(figure) + ".png"))) << figure << "\n" << o.out << o.err;
    EXPECT_NE(slurp(figures / (std::string(figure) + ".svg")).find("NVIDIA H200"), std::string::npos)
        << figure;
  }
  o = fla_bench("report " + h100 + " " + h200 + " -o " + report.string());
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  const std::string page = slurp(report / "index.html");
  EXPECT_NE(page.find("gpu_vs_gpu_gla_fwd_bf16.png"), std::string::npos);
  EXPECT_NE(page.find(kRegressed), std::string::npos);
  o = fla_bench("plot " + (dir / "absent.json").string() + " -o " + figures.string());
  EXPECT_EQ(o.status, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("absent.json"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace flabench
