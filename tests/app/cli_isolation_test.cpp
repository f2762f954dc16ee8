// --isolate: a case that crashes, hangs or exits in its worker is recorded as failed with the cause, and
// every other case still runs. The faults are injected into the worker (FLA_BENCH_WORKER_FAULT) on the cpu
// backend; on a GPU the same path handles an illegal address that poisons the CUDA context.
#include <gtest/gtest.h>
#include <unistd.h>

#include "results/result_file.h"
#include "suites/device.h"
#include "tests/app/cli_support.h"

namespace flabench {
namespace {

using namespace testing;

fs::path temporary(const std::string& name) {
  return fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".json");
}

// Runs `arguments` with the fault, and returns the result file's records.
ResultFile run_with_fault(const std::string& arguments, const std::string& fault, Outcome& outcome) {
  const fs::path path = temporary("cli-isolation");
  outcome = fla_bench(arguments + " --out " + path.string(), "FLA_BENCH_WORKER_FAULT='" + fault + "'");
  ResultFile file = read_result_file(path);
  fs::remove(path);
  return file;
}

void expect_only_failure(const ResultFile& file, const std::string& name, const std::string& cause) {
  int failed = 0;
  for (const CaseRecord& c : file.cases) {
    if (c.name != name) {
      EXPECT_NE(c.status, CaseStatus::failed) << c.name << ": " << c.reason;
      continue;
    }
    ++failed;
    EXPECT_EQ(c.status, CaseStatus::failed);
    EXPECT_NE(c.reason.find(cause), std::string::npos) << c.reason;
  }
  EXPECT_EQ(failed, 1) << name;
}

TEST(CliIsolation, ACrashingCaseIsRecordedAndTheRunGoesOn) {
  Outcome o;
  const std::string victim = "rwkv7/reference/fwd/bf16/B1-T256-H2-K64-V64";
  const ResultFile file = run_with_fault(
      "--device cpu --filter 'rwkv7/reference/fwd/' --min-time 0.01 --isolate", victim + "=segv", o);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_EQ(file.cases.size(), 6u);
  expect_only_failure(file, victim, "killed by signal 11 (Segmentation fault)");
  EXPECT_TRUE(file.complete);
}

TEST(CliIsolation, AHangingCaseTimesOutAndAnExitingOneIsNamed) {
  Outcome o;
  const std::string hang = "hygiene/gla/reference/fwdbwd/fp32/B2-T65-H2-K64-V32/deterministic";
  ResultFile file = run_with_fault(
      "check --device cpu --filter '^[a-z]+/gla/reference/fwdbwd/fp32/B2-T65' --case-timeout 2",
      hang + "=hang", o);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  expect_only_failure(file, hang, "timed out after 2 s (--case-timeout)");
  EXPECT_NE(o.out.find("failed:\n  " + hang), std::string::npos) << o.out;

  const std::string exits = "decay/gla/reference/fwdbwd/fp32/B2-T65-H2-K64-V32/floor";
  file = run_with_fault("check --device cpu --filter '^[a-z]+/gla/reference/fwdbwd/fp32/B2-T65'",
                        exits + "=exit", o);
  expect_only_failure(file, exits, "exited with status 7");
}

TEST(CliIsolation, CheckIsolatesByDefaultAndNoIsolateRunsInProcess) {
  Outcome o;
  const std::string victim = "accuracy/simple_gla/reference/fwd/fp16/B2-T65-H3-K64-V64/reference";
  ResultFile file =
      run_with_fault("check --device cpu --filter '^accuracy/simple_gla/'", victim + "=abort", o);
  expect_only_failure(file, victim, "killed by signal 6");
  // in process, no worker: the injection is never consulted
  file = run_with_fault("check --device cpu --filter '^accuracy/simple_gla/' --no-isolate", victim + "=abort",
                        o);
  EXPECT_EQ(o.status, 0) << o.err;
}

TEST(CliIsolation, AnIllegalAddressOnTheGpuFailsOneCaseAndAFreshWorkerRunsTheRest) {
  std::string why;
  if (cuda_device_count(why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  Outcome o;
  const std::string victim = "gla/fused_recurrent/fwd/bf16/B8-T1024-H8-K64-V64";
  const ResultFile file =
      run_with_fault("--device cuda --filter '^gla/fused_recurrent/fwd/bf16' --min-time 0.05 --isolate",
                     "^" + victim + "=cuda", o);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_EQ(file.cases.size(), 5u);
  expect_only_failure(file, victim, "illegal memory access");
}

TEST(CliIsolation, BadIsolationArgumentsAreOneLineErrors) {
  std::string why;
  if (cuda_device_count(why) == 0)
    expect_usage_error("--device cpu --filter rwkv7 --devices 0", "--devices 0: no CUDA device here");
  else
    expect_usage_error("--device cpu --filter rwkv7 --devices 99", "--devices: '99' is not a GPU here");
  expect_usage_error("profile --device cpu --isolate", "--isolate and --devices do not apply");
  expect_usage_error("--device cpu --case-timeout 0", "--case-timeout");
}

}  // namespace
}  // namespace flabench
