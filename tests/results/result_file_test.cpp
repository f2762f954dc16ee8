#include "results/result_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "results/json_format.h"
#include "results/result_set.h"
#include "results/xz_text.h"
#include "tests/results/sample_records.h"
#include "tests/results/xz_fixture.h"

namespace flabench {
namespace {

namespace fs = std::filesystem;

class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("fla-bench-test-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  fs::path dir;
};

TEST_F(ResultFileTest, RoundTripThroughTheFinalFile) {
  const fs::path path = dir / "run.json";
  CaseRecord skipped = testing::sample_case("gla/naive/fwdbwd/fp32/B1-T64-H1-K256-V256");
  skipped.status = CaseStatus::skipped;
  skipped.reason = "too large";
  skipped.timing.reset(), skipped.derived.reset(), skipped.memory.reset(), skipped.check.reset();
  {
    JsonFileReporter reporter(path);
    reporter.begin(testing::sample_context());
    reporter.record(testing::sample_case());
    EXPECT_TRUE(fs::exists(partial_path(path)));  // on disk as soon as the case finished
    reporter.record(skipped);
    reporter.end({2, 1, 0, 1, 3.5});
  }
  EXPECT_FALSE(fs::exists(partial_path(path)));
  const ResultFile file = read_result_file(path);
  EXPECT_TRUE(file.complete);
  EXPECT_EQ(file.context, testing::sample_context());
  ASSERT_EQ(file.cases.size(), 2u);
  EXPECT_EQ(file.cases[0], testing::sample_case());
  EXPECT_EQ(file.cases[1], skipped);
  EXPECT_EQ(file.summary, (RunSummary{2, 1, 0, 1, 3.5}));
}

TEST_F(ResultFileTest, ARunThatDiesKeepsEveryFinishedCase) {
  const fs::path path = dir / "crashed.json";
  {
    JsonFileReporter reporter(path);
    reporter.begin(testing::sample_context());
    reporter.record(testing::sample_case("a"));
    reporter.record(testing::sample_case("b"));
  }  // no end(): the process died here
  EXPECT_FALSE(fs::exists(path));
  std::ofstream(partial_path(path), std::ios::app) << "{\"case\": {\"name\": \"c\", \"op";  // cut mid-write
  const ResultFile file = read_result_file(partial_path(path));
  EXPECT_FALSE(file.complete);
  ASSERT_EQ(file.cases.size(), 2u);
  EXPECT_EQ(file.cases[1].name, "b");
  EXPECT_EQ(file.context.host, "gpu-host");
}

TEST_F(ResultFileTest, UnwritablePathFailsBeforeAnyMeasuring) {
  EXPECT_THROW(JsonFileReporter(dir / "missing-dir" / "run.json"), ResultFileError);
}

void expect_read_error(const fs::path& path, const std::string& fragment) {
  try {
    read_result_file(path);
    ADD_FAILURE() << "read " << path;
  } catch (const ResultFileError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST_F(ResultFileTest, BadFilesGiveOneClearError) {
  expect_read_error(dir / "absent.json", "cannot open");
  write(dir / "garbage.json", "{not json");
  expect_read_error(dir / "garbage.json", "not valid JSON");
  write(dir / "other.json", R"({"schema": "something-else", "schema_version": "1.0.0"})");
  expect_read_error(dir / "other.json", "not an fla-bench result file");
  write(dir / "future.json", R"({"schema": "fla-bench-result", "schema_version": "2.0.0"})");
  expect_read_error(dir / "future.json",
                    "schema version 2.0.0 cannot be read by this fla-bench (it reads 1.x)");
  nlohmann::json truncated =
      result_file_json({testing::sample_context(), {testing::sample_case()}, {}, true});
  truncated["cases"][0].erase("axes");
  write(dir / "truncated.json", truncated.dump());
  expect_read_error(dir / "truncated.json", "axes");
  write(dir / "empty.json.partial", "");
  expect_read_error(dir / "empty.json.partial", "empty file");
}

TEST_F(ResultFileTest, XzCompressedFilesReadAsTheirJsonAndFoldersFindThem) {
  const ResultFile run{
      testing::sample_context(), {testing::sample_case()}, RunSummary{1, 1, 0, 0, 2.0}, true};
  const std::string text = result_file_json(run).dump();
  write(dir / "a.json", text);
  write(dir / "b.json.xz",
        testing::xz_compressed(text) + testing::xz_compressed(""));  // concatenated streams read whole
  write(dir / "notes.txt", "not a result");
  const ResultFile packed = read_result_file(dir / "b.json.xz");
  EXPECT_EQ(packed.cases, run.cases);
  EXPECT_EQ(packed.context, run.context);
  const std::vector<LoadedResult> found = load_results(dir);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].path.filename(), "a.json");
  EXPECT_EQ(found[1].path.filename(), "b.json.xz");
}

TEST_F(ResultFileTest, DamagedXzIsOneClearError) {
  const std::string packed = testing::xz_compressed(
      result_file_json({testing::sample_context(), {testing::sample_case()}, {}, true}).dump());
  write(dir / "cut.json.xz", packed.substr(0, packed.size() - 20));
  expect_read_error(dir / "cut.json.xz", "truncated xz data");
  std::string flipped = packed;
  flipped[flipped.size() / 2] ^= 0x55;
  write(dir / "flipped.json.xz", flipped);
  expect_read_error(dir / "flipped.json.xz", "corrupt xz data");
  EXPECT_FALSE(is_xz("{\"schema\": 1}"));
  EXPECT_THROW(xz_decompress("\xFD"
                             "7zXZ"),
               TextReadError);
}

TEST(JsonFormat, OptionalPartsAreLeftOutAndStatusIsAName) {
  CaseRecord r = testing::sample_case();
  r.timing.reset();
  r.status = CaseStatus::failed;
  const nlohmann::json j = r;
  EXPECT_FALSE(j.contains("timing"));
  EXPECT_EQ(j.at("status"), "failed");
  EXPECT_EQ(j.at("axes").at("chunk_size"), 0);
  EXPECT_EQ(j.get<CaseRecord>(), r);
}

TEST(JsonFormat, AProfiledCaseKeepsItsTimelineAndOlderRecordsReadWithout) {
  CaseRecord r = testing::sample_case();
  r.kernel_times = std::vector<KernelTimeRecord>{{"fwd_kernel", 1, 0.03, 60}, {"rows_kernel", 1, 0.02, 40}};
  r.timeline = std::vector<LaunchRecord>{{"fwd_kernel", 0, 0.0, 0.03}, {"rows_kernel", 1, 0.01, 0.03}};
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("timeline").at(1).at("stream"), 1);
  EXPECT_EQ(j.at("timeline").at(1).at("start_ms"), 0.01);
  EXPECT_EQ(j.get<CaseRecord>(), r);
  nlohmann::json old = j;  // a 1.3 record: no timeline
  old.erase("timeline");
  EXPECT_FALSE(old.get<CaseRecord>().timeline);
}

TEST(JsonFormat, TheIssueTimeIsKeptAndOlderTimingsReadAsZero) {
  const CaseRecord r = testing::sample_case();
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("timing").at("issue_ms"), 0.02);
  EXPECT_EQ(j.get<CaseRecord>(), r);
  nlohmann::json old = j;  // a 1.4 record: no issue time
  old.at("timing").erase("issue_ms");
  EXPECT_EQ(old.get<CaseRecord>().timing->issue_ms, 0);
  EXPECT_EQ(old.get<CaseRecord>().timing->median_ms, r.timing->median_ms);
}

TEST(JsonFormat, ACaseKeepsItsMemoryAndOlderRecordsReadWithout) {
  const CaseRecord r = testing::sample_case();
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("memory").at("workspace_bytes"), 2147483648u);  // past 32 bits
  EXPECT_EQ(j.at("memory").at("tensor_bytes"), 50331648u);
  EXPECT_EQ(j.get<CaseRecord>(), r);
  nlohmann::json old = j;  // a 1.5 record: no memory
  old.erase("memory");
  EXPECT_FALSE(old.get<CaseRecord>().memory);
}

TEST(JsonFormat, TheContextKeepsItsEnvironmentAndOlderContextsReadWithout) {
  RunContext c = testing::sample_context();
  EXPECT_FALSE(nlohmann::json(c).contains("environment"));  // none recorded: left out
  c.environment = {{"FLA_AB_PIECES", "4"}, {"CUDA_VISIBLE_DEVICES", "1"}};
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("environment").at("FLA_AB_PIECES"), "4");
  EXPECT_EQ(j.get<RunContext>(), c);
  nlohmann::json old = j;  // a 1.6 context: no environment
  old.erase("environment");
  EXPECT_TRUE(old.get<RunContext>().environment.empty());
  nlohmann::json broken = j;  // the keys before 1.7 are still required
  broken.erase("git_sha");
  EXPECT_THROW(broken.get<RunContext>(), nlohmann::json::exception);
}

TEST(JsonFormat, SlotAndGroupAxesAreWrittenOnlyForTheOpsThatHaveThem) {
  CaseRecord r = testing::sample_case("gsa/naive/fwd/bf16/B2-T64-H2-K64-V64-M32-G4");
  r.M = 32, r.G = 4;
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("axes").at("M"), 32);
  EXPECT_EQ(j.at("axes").at("G"), 4);
  EXPECT_EQ(j.get<CaseRecord>(), r);
  const nlohmann::json plain = testing::sample_case();
  EXPECT_FALSE(plain.at("axes").contains("M"));
  EXPECT_FALSE(plain.at("axes").contains("G"));
}

TEST(JsonFormat, BatteryRecordsKeepFamilyDetailAndReproduceAndOldRecordsStillRead) {
  CaseRecord r = testing::sample_case("hygiene/rwkv7/naive/fwdbwd/bf16/B2-T65-H2-K64-V32/inputs_unchanged");
  r.family = "hygiene";
  r.timing.reset(), r.derived.reset();
  r.status = CaseStatus::failed;
  r.check->passed = false;
  r.check->tensors[0] = {"k", 0, 1.0, 0, 0, false, "1 of 16640 elements changed"};
  r.reason = "check failed: " + check_summary(*r.check);
  r.reproduce = "fla-bench check --device cuda --filter '^" + r.name + "$' --seed 0";
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("family"), "hygiene");
  EXPECT_EQ(j.at("check").at("tensors").at(0).at("detail"), "1 of 16640 elements changed");
  EXPECT_EQ(r.reason, "check failed: FAIL k: 1 of 16640 elements changed");
  EXPECT_EQ(j.get<CaseRecord>(), r);

  nlohmann::json old = testing::sample_case();  // a 1.0 record: no family, reproduce or detail
  for (auto& tensor : old.at("check").at("tensors")) tensor.erase("detail");
  EXPECT_FALSE(old.contains("family"));
  EXPECT_EQ(old.get<CaseRecord>(), testing::sample_case());
}

}  // namespace
}  // namespace flabench
