// The command line shared by the subcommands, and what it turns into: a device, the selected cases, the run
// settings and the provenance block of the result file.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "results/compare.h"
#include "suites/cases.h"
#include "suites/device.h"
#include "suites/runner.h"
#include "suites/shards.h"

namespace flabench {

struct CommandLine {
  std::string filter;
  std::vector<std::string> axes;
  std::string preset;  // empty: the device's default group
  std::string device = "auto";
  std::string shard;  // --shard I/N
  bool isolate = false, no_isolate = false;
  std::string devices;  // --devices all|0,2,3
  double case_timeout_s = 600;
  bool worker = false;  // a worker process of an isolated run (hidden)
  std::string out;      // empty: fla-bench-<time>.json
  bool no_check = false;
  std::uint64_t seed = 0;
  double min_time_s = 0.5;
  int min_samples = 10;
  double warmup_time_s = 0.1;
  bool no_l2_flush = false;
  double bandwidth_gbs = 0;  // 0: the measured copy bandwidth
  bool list_presets = false;
  bool profile_once = false;
  std::string metrics = "default";  // profile --metrics
  bool no_kernel_times = false;     // profile --no-kernel-times
  bool list_checks = false;         // check --list
  bool no_long = false;             // check --no-long

  // compare, history, plot and report
  std::vector<std::string> inputs;  // result files or folders (history: the GPU's folder)
  double threshold = 0.05;          // --threshold, a fraction
  double alpha = 0.01;
  bool fail_on_regression = false;
  bool across_gpus = false;
  bool rounds = false;      // compare --rounds: BASE NEW pairs of an A/B test timed alternately
  std::string history_add;  // history --add RESULT
  std::size_t last_runs = 0;
  int lookback = 7;
  double min_z = 4;
  std::string output_dir;    // plot and report -o
  std::string history_file;  // plot and report --history
  std::vector<std::string> argv;
};

void add_selection_options(CLI::App& app, CommandLine& line);  // filter, axis, preset, device
void add_run_options(CLI::App& app, CommandLine& line);        // out, seed, timing, checks
void add_compare_options(CLI::App& compare, CommandLine& line);
void add_history_options(CLI::App& history, CommandLine& line);
void add_plot_options(CLI::App& plot, CommandLine& line);  // plot and report
void add_merge_options(CLI::App& merge, CommandLine& line);

struct Session {
  std::unique_ptr<Device> device;
  std::vector<Case> cases;  // this shard's, with --shard
  ShardSpec shard{1, 1};
  std::int64_t selection_cases = 0;  // the whole selection's
  std::string selection_digest;
};

// Opens the device (printing one line to stderr when it falls back to the cpu backend) and expands the
// selected cases. Throws UsageError for bad axes, presets, filters, devices, or when nothing is selected.
Session open_session(const CommandLine& line);

RunSettings run_settings(const CommandLine& line, const Device& device);
RunContext run_context(const CommandLine& line, const Device& device, const RunSettings& settings);
// run_context with the session's shard and selection recorded.
RunContext run_context(const CommandLine& line, const Session& session, const RunSettings& settings);
std::filesystem::path output_path(const CommandLine& line);

// The --filter regex as a case selector (empty for no filter). Throws UsageError for a bad regex.
CaseSelector case_selector(const std::string& filter);

// Writes `j` to --out, when given, and says so (compare and history). Throws UsageError when it cannot.
void write_json_out(const CommandLine& line, const nlohmann::json& j);

}  // namespace flabench
