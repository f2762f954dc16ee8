// Run-against-run verdicts, across-GPU normalisation, and the rank test under them.
#include "results/compare.h"

#include <gtest/gtest.h>

#include <sstream>

#include "results/across_gpus.h"
#include "results/comparison_text.h"
#include "results/statistics.h"
#include "tests/results/fixture_runs.h"

namespace flabench {
namespace {

using testing::fixture_run;
using testing::samples_around;
using testing::timed_case;

TEST(MannWhitney, ExactForSmallSamplesAndNormalForLargeOnes) {
  const std::vector<double> low{1, 2, 3}, high{4, 5, 6};
  EXPECT_DOUBLE_EQ(mann_whitney(low, high).u, 0);
  EXPECT_NEAR(mann_whitney(low, high).p_value, 0.1, 1e-12);  // 2 x 1/20 arrangements
  const std::vector<double> a{1, 3}, b{2, 4};
  EXPECT_DOUBLE_EQ(mann_whitney(a, b).u, 1);
  EXPECT_NEAR(mann_whitney(a, b).p_value, 2.0 / 3, 1e-12);  // U of 2 x 2: counts 1, 1, 2, 1, 1
  EXPECT_DOUBLE_EQ(mann_whitney(std::vector<double>{1, 1, 1}, std::vector<double>{1, 1, 1}).p_value, 1);

  const std::vector<double> base = samples_around(1.0, 0.02, 200, 1);
  EXPECT_LT(mann_whitney(base, samples_around(1.1, 0.02, 200, 2)).p_value, 1e-20);
  EXPECT_GT(mann_whitney(base, samples_around(1.0, 0.02, 200, 3)).p_value, 0.01);
}

TEST(MannWhitney, MedianAndMadAreRobust) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2, 100}), 2.5);
  EXPECT_DOUBLE_EQ(median_absolute_deviation({1, 2, 3, 4, 100}), 1);
}

const CaseComparison& find(const Comparison& comparison, const std::string& name) {
  for (const CaseComparison& c : comparison.cases)
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

TEST(Compare, FlagsAPlantedRegressionButNotNoise) {
  const LoadedResult base =
      fixture_run("base.json", {timed_case("a/regressed", samples_around(2.0, 0.03, 100, 1)),
                                timed_case("a/noise", samples_around(1.0, 0.03, 100, 2)),
                                timed_case("a/faster", samples_around(4.0, 0.03, 100, 3)),
                                timed_case("a/tiny_shift", samples_around(1.0, 0.003, 2000, 4)),
                                timed_case("a/few", samples_around(1.0, 0.01, 3, 5)),
                                timed_case("a/gone", samples_around(1.0, 0.01, 50, 6))});
  CaseRecord failed = testing::sample_case("a/few_failed");
  failed.status = CaseStatus::failed;
  failed.reason = "check failed: FAIL dk 3.1e-02 > 6.0e-03";
  CaseRecord was_ok = testing::sample_case("a/few_failed");
  const LoadedResult next =
      fixture_run("new.json", {timed_case("a/regressed", samples_around(2.2, 0.03, 100, 11)),
                               timed_case("a/noise", samples_around(1.0, 0.03, 100, 12)),
                               timed_case("a/faster", samples_around(3.4, 0.03, 100, 13)),
                               timed_case("a/tiny_shift", samples_around(1.01, 0.003, 2000, 14)),
                               timed_case("a/few", samples_around(1.5, 0.01, 3, 15)),
                               timed_case("a/new", samples_around(1.0, 0.01, 50, 16)), failed});
  std::vector<LoadedResult> base_runs{base}, next_runs{next};
  base_runs[0].file.cases.push_back(was_ok);

  const Comparison comparison = compare_runs(base_runs, next_runs, {});
  EXPECT_EQ(find(comparison, "a/regressed").verdict, Verdict::slower);
  EXPECT_NEAR(find(comparison, "a/regressed").ratio, 1.1, 0.02);
  EXPECT_EQ(find(comparison, "a/noise").verdict, Verdict::same);
  EXPECT_EQ(find(comparison, "a/faster").verdict, Verdict::faster);
  // significant with 2000 samples a side, but a 1% move is under the 5% threshold
  EXPECT_LT(*find(comparison, "a/tiny_shift").p_value, 0.01);
  EXPECT_EQ(find(comparison, "a/tiny_shift").verdict, Verdict::same);
  EXPECT_EQ(find(comparison, "a/few").verdict, Verdict::untested);
  EXPECT_EQ(find(comparison, "a/few").note, "3 and 3 samples cannot reach p < 0.01");
  EXPECT_EQ(find(comparison, "a/gone").verdict, Verdict::only_base);
  EXPECT_EQ(find(comparison, "a/new").verdict, Verdict::only_new);
  EXPECT_EQ(find(comparison, "a/few_failed").verdict, Verdict::broken);
  EXPECT_TRUE(comparison.regressed());
  EXPECT_EQ(comparison.count(Verdict::slower), 1);
  EXPECT_EQ(comparison.timed_pairs, 5);

  const Comparison selected =
      compare_runs(base_runs, next_runs, {}, [](const std::string& name) { return name == "a/noise"; });
  ASSERT_EQ(selected.cases.size(), 1u);
  EXPECT_FALSE(selected.regressed());
  EXPECT_NEAR(selected.geomean_ratio, 1.0, 0.01);

  // a stricter effect size turns the regression into "same"
  EXPECT_EQ(find(compare_runs(base_runs, next_runs, {0.2, 0.01}), "a/regressed").verdict, Verdict::same);
}

TEST(Compare, ListsTheCasesWhoseMemoryChanged) {
  CaseRecord grew = timed_case("a/grew", samples_around(1.0, 0.01, 50, 1));
  CaseRecord kept = timed_case("a/kept", samples_around(1.0, 0.01, 50, 2));
  CaseRecord old = timed_case("a/old", samples_around(1.0, 0.01, 50, 3));
  old.memory.reset();  // a 1.5 record
  grew.memory = MemoryRecord{1 << 20, 1 << 20};
  kept.memory = MemoryRecord{1 << 20, 0};
  const LoadedResult base = fixture_run("base.json", {grew, kept, old});
  grew.memory->workspace_bytes = 2 << 20, old.memory = MemoryRecord{1 << 20, 0};
  const LoadedResult next = fixture_run("new.json", {grew, kept, old});
  const Comparison comparison = compare_runs({base}, {next}, {});
  EXPECT_TRUE(find(comparison, "a/grew").memory_changed());
  EXPECT_EQ(*find(comparison, "a/grew").new_bytes, 3u << 20);
  EXPECT_FALSE(find(comparison, "a/kept").memory_changed());
  EXPECT_FALSE(find(comparison, "a/old").memory_changed());
  EXPECT_FALSE(comparison.regressed());  // reported, not judged
  std::ostringstream text;
  print_comparison(text, comparison, {});
  EXPECT_NE(text.str().find("memory: a/grew 2.0 -> 3.0 MiB (+50.0%)\n"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("memory: a/kept"), std::string::npos);
  const nlohmann::json rows = comparison_json(comparison, {}).at("cases");
  EXPECT_EQ(rows.at(0).at("base_bytes"), 2u << 20);
  EXPECT_FALSE(rows.at(2).contains("base_bytes"));
}

TEST(CompareRounds, AVerdictNeedsEveryRound) {
  const auto run = [](const std::string& file, double steady_ms, double moved_ms, double broken_ms, bool fail,
                      unsigned seed) {
    std::vector<CaseRecord> cases{timed_case("a/steady", samples_around(steady_ms, 0.02, 100, seed)),
                                  timed_case("a/moved", samples_around(moved_ms, 0.02, 100, seed + 1)),
                                  timed_case("a/broken", samples_around(broken_ms, 0.02, 100, seed + 2))};
    if (fail) {
      cases.back().status = CaseStatus::failed;
      cases.back().reason = "check failed";
    }
    return std::vector<LoadedResult>{fixture_run(file, cases)};
  };
  // a/moved: 20% faster in rounds 1 and 3, the same in round 2; a/broken fails in round 2's new run only
  const std::vector<RunPair> rounds{
      {run("r1-base.json", 1, 2.0, 1, false, 10), run("r1-new.json", 1, 1.6, 1, false, 20)},
      {run("r2-base.json", 1, 2.0, 1, false, 30), run("r2-new.json", 1, 2.0, 1, true, 40)},
      {run("r3-base.json", 1, 2.0, 1, false, 50), run("r3-new.json", 1, 1.6, 1, false, 60)}};
  const RoundsComparison all = compare_rounds(rounds, {});
  ASSERT_EQ(all.rounds.size(), 3u);
  ASSERT_EQ(all.cases.size(), 3u);
  const auto row = [&](const RoundsComparison& c, const std::string& name) -> const RoundsRow& {
    for (const RoundsRow& r : c.cases)
      if (r.name == name) return r;
    throw std::runtime_error("no case " + name);
  };
  EXPECT_EQ(row(all, "a/steady").verdict, Verdict::same);
  EXPECT_TRUE(row(all, "a/steady").agreed);
  EXPECT_EQ(row(all, "a/moved").verdict, Verdict::same);
  EXPECT_FALSE(row(all, "a/moved").agreed);
  EXPECT_EQ(row(all, "a/moved").rounds[0].verdict, Verdict::faster);
  EXPECT_EQ(row(all, "a/moved").rounds[1].verdict, Verdict::same);
  EXPECT_EQ(row(all, "a/broken").verdict, Verdict::broken);
  EXPECT_TRUE(all.regressed());
  EXPECT_EQ(all.disagreements(), 2);

  // rounds 1 and 3 agree: faster
  const RoundsComparison agreed = compare_rounds({rounds[0], rounds[2]}, {});
  EXPECT_EQ(row(agreed, "a/moved").verdict, Verdict::faster);
  EXPECT_NEAR(row(agreed, "a/moved").rounds[1].ratio, 0.8, 0.02);
  EXPECT_FALSE(agreed.regressed());

  // a case missing from one round's runs is untested, whatever the others say
  RunPair short_round = rounds[0];
  short_round.first[0].file.cases.pop_back();
  short_round.second[0].file.cases.pop_back();
  const RoundsComparison gap = compare_rounds({short_round, rounds[2]}, {});
  EXPECT_EQ(row(gap, "a/broken").verdict, Verdict::untested);
  EXPECT_EQ(row(gap, "a/broken").rounds[0].note, "not in this round's runs");
  EXPECT_EQ(row(gap, "a/moved").verdict, Verdict::faster);
}

TEST(Compare, ACaseInTwoFilesOfOneSideIsRefused) {
  const std::vector<LoadedResult> side{fixture_run("one.json", {timed_case("x", {1, 2, 3})}),
                                       fixture_run("two.json", {timed_case("x", {1, 2, 3})})};
  try {
    compare_runs(side, side, {});
    ADD_FAILURE() << "accepted a duplicate";
  } catch (const ResultFileError& e) {
    EXPECT_EQ(std::string(e.what()), "case x is in both one.json and two.json; pass only the one to compare");
  }
}

TEST(AcrossGpus, NormalisesToEachGpusOwnFloorAndPeak) {
  auto gpu_run = [](const std::string& device, int cc, int sms, double clock_mhz, double bandwidth_gbs,
                    double median_ms) {
    CaseRecord r =
        timed_case("gla/chunk/fwd/bf16/B8-T1024-H8-K64-V64", samples_around(median_ms, 0.01, 50, 7));
    r.timing->median_ms = median_ms;
    r.derived->floor_bytes = 1e9;  // 1 GB
    r.derived->flops = 1e10;       // 10 FLOP per byte
    LoadedResult run = fixture_run(device + ".json", {r}, device);
    run.file.context.device.compute_capability = cc;
    run.file.context.device.sm_count = sms;
    run.file.context.device.sm_clock_mhz = clock_mhz;
    run.file.context.settings.floor_bandwidth_gbs = bandwidth_gbs;
    return run;
  };
  // H100: 2x128x132x1980 MHz = 66.9 TFLOP/s fp32, ridge 66.9e12 / 3000e9 = 22 FLOP/byte > 10: memory side.
  // RTX 4070 Ti: 2x128x60x2610 MHz = 40.1 TFLOP/s, 480 GB/s: ridge 84 > 10: memory side too.
  const AcrossGpus table =
      across_gpus({{"h100.json", {gpu_run("NVIDIA H100 80GB HBM3", 90, 132, 1980, 3000, 0.5)}},
                   {"4070ti.json", {gpu_run("NVIDIA GeForce RTX 4070 Ti", 89, 60, 2610, 480, 20)}}});
  ASSERT_EQ(table.gpus.size(), 2u);
  EXPECT_NEAR(table.gpus[0].fp32_peak_tflops, 66.9, 0.1);
  EXPECT_NEAR(table.gpus[1].fp32_peak_tflops, 40.1, 0.1);
  ASSERT_EQ(table.rows.size(), 1u);
  const AcrossCell& h100 = *table.rows[0].cells[0];
  const AcrossCell& ada = *table.rows[0].cells[1];
  EXPECT_NEAR(h100.floor_pct, 100 * (1e9 / 3000e9) / 0.5e-3, 1e-9);  // 66.7%: the floor is 0.333 ms
  EXPECT_EQ(h100.regime, "memory");
  EXPECT_NEAR(ada.floor_pct, 100 * (1e9 / 480e9) / 20e-3, 1e-9);  // 10.4%
  EXPECT_EQ(ada.regime, "latency");
  EXPECT_NEAR(ada.peak_pct, 100 * 1e10 / 40.0896e12 / 20e-3, 1e-6);

  EXPECT_THROW(across_gpus({{"mixed",
                             {gpu_run("NVIDIA H100 80GB HBM3", 90, 132, 1980, 3000, 0.5),
                              gpu_run("NVIDIA A100-SXM4-80GB", 80, 108, 1410, 1900, 0.6)}}}),
               ResultFileError);
}

}  // namespace
}  // namespace flabench
