#include "app/options.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <string_view>

#include "app/build_info.h"
#include "results/result_file.h"
#include "suites/cases.h"
#include "suites/usage_error.h"

extern char** environ;  // POSIX: the process's environment

namespace flabench {
namespace {

std::string utc_time(const char* pattern) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[64];
  std::strftime(text, sizeof text, pattern, &parts);
  return text;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown";
}

// The variables RunContext::environment keeps: fla-bench's own switches (FLA_*) and CUDA's (CUDA_*), the ones
// that change what a run times.
std::map<std::string, std::string> recorded_environment() {
  std::map<std::string, std::string> kept;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, equals);
    if (name.starts_with("FLA_") || name.starts_with("CUDA_"))
      kept.emplace(std::string(name), std::string(text.substr(equals + 1)));
  }
  return kept;
}

// CLI11's stock range validators print the whole double range; this one says what is allowed in words.
CLI::Validator at_least(double lowest, bool inclusive, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double value = std::stod(text, &used);
          if (used == text.size() && (inclusive ? value >= lowest : value > lowest)) return "";
        } catch (const std::exception&) {
        }
        return "'" + text + "' is not " + what;
      },
      what);
}

// "5%" or "5": a percentage, stored as a fraction.
CLI::Validator percentage(const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::string number = text;
        if (!number.empty() && number.back() == '%') number.pop_back();
        try {
          std::size_t used = 0;
          const double value = std::stod(number, &used);
          if (used == number.size() && value > 0 && value < 1000) {
            text = std::to_string(value / 100);
            return "";
          }
        } catch (const std::exception&) {
        }
        return "'" + text + "' is not " + what;
      },
      what);
}

}  // namespace

void add_compare_options(CLI::App& compare, CommandLine& line) {
  compare
      .add_option("results", line.inputs,
                  "BASE NEW (result files or folders); with --across-gpus one per GPU")
      ->required()
      ->expected(2, -1);
  compare.add_option("--threshold", line.threshold, "smallest change of the median that counts, e.g. 5%")
      ->transform(percentage("a percentage such as 5%"))
      ->default_str("5%");
  compare.add_option("--alpha", line.alpha, "significance level of the Mann-Whitney U test")
      ->check(CLI::Range(1e-9, 0.5))
      ->capture_default_str();
  compare.add_flag("--fail-on-regression", line.fail_on_regression,
                   "exit 1 when a case is slower or newly failing");
  compare.add_flag("--across-gpus", line.across_gpus,
                   "the same cases on different GPUs side by side, against each GPU's floor and peak");
  compare.add_flag("--rounds", line.rounds,
                   "BASE NEW BASE NEW ...: rounds of one A/B test timed alternately; a case is faster or "
                   "slower only when every round says so");
}

void add_history_options(CLI::App& history, CommandLine& line) {
  history.add_option("folder", line.inputs, "one GPU's folder of runs (with --add: the store)")
      ->required()
      ->expected(1);
  history.add_option("--add", line.history_add, "file RESULT into the store as <gpu>/<start>-<commit>.json");
  history.add_option("--last", line.last_runs, "only the newest N runs")->check(CLI::Range(2, 100000));
  history.add_option("--lookback", line.lookback, "runs in a case's baseline")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  history.add_option("--threshold", line.threshold, "smallest step that counts, e.g. 5%")
      ->transform(percentage("a percentage such as 5%"))
      ->default_str("5%");
  history.add_option("--min-z", line.min_z, "robust z-score a step must reach")
      ->check(CLI::Range(0.5, 1000.0))
      ->capture_default_str();
  history.add_flag("--fail-on-regression", line.fail_on_regression,
                   "exit 1 when a case's newest run is a step slower");
}

void add_merge_options(CLI::App& merge, CommandLine& line) {
  merge.add_option("files", line.inputs, "OUT and the shard files (or folders of them)")
      ->required()
      ->expected(2, -1);
}

void add_plot_options(CLI::App& plot, CommandLine& line) {
  plot.add_option("results", line.inputs, "result files or folders")->required()->expected(1, -1);
  plot.add_option("-o,--output-dir", line.output_dir, "folder for the figures (created)")->required();
  plot.add_option("--history", line.history_file, "a history analysis (fla-bench history --out) to plot");
}

void add_selection_options(CLI::App& app, CommandLine& line) {
  app.add_option("--filter", line.filter,
                 "regex searched in case names, e.g. 'rwkv7/naive/fwdbwd/bf16' or 'gla|rwkv6'");
  app.add_option("--axis", line.axes,
                 "NAME=VALUES (repeatable): B, T, H, K, V, D (K=V), M (gsa's slots), G (query heads per "
                 "key/value head), C (chunk), dtype, mode; values 1,2,4 or start:stop[:step]; sizes also "
                 "NAME[pow2]=10:14");
  app.add_option("--preset", line.preset, "shape groups or shapes, e.g. peer,fla or B4_T2048_H16_D128")
      ->default_str("peer on a GPU, cpu without");
  app.add_option("--device", line.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option(
      "--shard", line.shard,
      "I/N: only the I-th of N slices of the selection, balanced by expected cost (fla-bench merge "
      "joins the shard files)");
}

void add_run_options(CLI::App& app, CommandLine& line) {
  app.add_option("--out", line.out, "result file (JSON); written as cases finish")
      ->default_str("fla-bench-<UTC time>.json");
  app.add_option("--seed", line.seed, "seed of the generated inputs")->capture_default_str();
  app.add_flag("--no-check", line.no_check, "skip the correctness spot check of each case");
  app.add_option("--min-time", line.min_time_s, "seconds of timed samples per case, at least")
      ->check(at_least(0, false, "a positive number of seconds"))
      ->capture_default_str();
  app.add_option("--min-samples", line.min_samples, "timed samples per case, at least")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--warmup", line.warmup_time_s, "seconds of untimed calls before timing")
      ->check(at_least(0, true, "a non-negative number of seconds"))
      ->capture_default_str();
  app.add_flag("--no-l2-flush", line.no_l2_flush, "keep the L2 cache warm between samples");
  app.add_flag(
      "--isolate", line.isolate,
      "run cases in worker processes: a case that crashes, hangs or poisons the GPU context is recorded "
      "as failed and the run goes on (on by default for check)");
  app.add_flag("--no-isolate", line.no_isolate,
               "run every case in this process (check's default is --isolate)");
  app.add_option("--devices", line.devices,
                 "all or 0,2,3: spread the cases over these GPUs, one worker each");
  app.add_option("--case-timeout", line.case_timeout_s,
                 "seconds an isolated case may take before it is killed")
      ->check(at_least(0, false, "a positive number of seconds"))
      ->capture_default_str();
  app.add_flag("--worker", line.worker, "(internal) serve cases to an isolating parent")->group("");
  app.add_flag(
      "--profile-once", line.profile_once,
      "run each case once (no checks, warm-up, timing or CUPTI of fla-bench's own), for ncu or nsys");
  app.add_option("--bandwidth", line.bandwidth_gbs,
                 "GB/s for the byte floor instead of the measured copy rate")
      ->check(at_least(0, false, "a positive bandwidth in GB/s"));
}

Session open_session(const CommandLine& line) {
  const AxisOverrides axes = parse_axes(line.axes);  // bad axes and shards fail before the device is touched
  const ShardSpec shard = line.shard.empty() ? ShardSpec{} : parse_shard(line.shard);
  std::string note;
  Session session;
  session.device = open_device(line.device, note);
  if (!note.empty()) std::cerr << "fla-bench: " << note << "\n";
  const bool gpu = session.device->backend() == Backend::cuda;
  SuiteSpec spec;
  spec.shapes = resolve_presets(line.preset.empty() ? default_preset(gpu) : line.preset);
  spec.axes = axes;
  spec.filter = line.filter;
  spec.backend = session.device->backend();
  spec.limits = session.device->limits();
  session.cases = expand_cases(product_registry(), spec);
  if (session.cases.empty())
    throw UsageError("no case matches --filter '" + line.filter + "' on the " +
                     std::string(backend_name(spec.backend)) + " backend (fla-bench list shows the cases)");
  session.selection_cases = static_cast<std::int64_t>(session.cases.size());
  session.selection_digest = selection_digest(session.cases);
  if (!line.shard.empty()) {
    session.shard = shard;
    session.cases = shard_cases(session.cases, shard);
    if (session.cases.empty())
      throw UsageError("--shard " + line.shard + " holds no case: the selection has only " +
                       std::to_string(session.selection_cases));
  }
  return session;
}

RunSettings run_settings(const CommandLine& line, const Device& device) {
  RunSettings settings;
  settings.timing.min_time_s = line.min_time_s;
  settings.timing.min_samples = line.min_samples;
  settings.timing.warmup_time_s = line.warmup_time_s;
  settings.timing.l2_flush = !line.no_l2_flush;
  settings.check = !line.no_check && !line.profile_once;
  settings.time = !line.profile_once;
  settings.profile_once = line.profile_once;
  settings.seed = line.seed;
  settings.floor_bandwidth_gbs =
      line.bandwidth_gbs > 0 ? line.bandwidth_gbs : device.record().bandwidth_measured_gbs;
  return settings;
}

RunContext run_context(const CommandLine& line, const Device& device, const RunSettings& settings) {
  RunContext context;
  context.started_utc = utc_time("%Y-%m-%dT%H:%M:%SZ");
  context.host = host_name();
  context.fla_bench_version = kFlaBenchVersion;
  context.git_sha = kGitSha;
  context.git_dirty = kGitDirty;
  context.command_line = line.argv;
  context.environment = recorded_environment();
  context.device = device.record();
  SettingsRecord& s = context.settings;
  s.min_time_s = settings.timing.min_time_s;
  s.min_samples = settings.timing.min_samples;
  s.warmup_time_s = settings.timing.warmup_time_s;
  s.l2_flush = settings.timing.l2_flush;
  s.check = settings.check;
  s.time = settings.time;
  s.seed = settings.seed;
  s.floor_bandwidth_gbs = settings.floor_bandwidth_gbs;
  s.floor_bandwidth_source = line.bandwidth_gbs > 0 ? "user" : "measured";
  return context;
}

CaseSelector case_selector(const std::string& filter) {
  const std::optional<std::regex> regex = compile_filter(filter);
  if (!regex) return {};
  return [regex](const std::string& name) { return std::regex_search(name, *regex); };
}

void write_json_out(const CommandLine& line, const nlohmann::json& j) {
  if (line.out.empty()) return;
  try {
    write_file_atomically(line.out, j.dump(1) + "\n");
  } catch (const ResultFileError& e) {
    throw UsageError(std::string("--out: ") + e.what());
  }
  std::cout << "written: " << line.out << "\n";
}

RunContext run_context(const CommandLine& line, const Session& session, const RunSettings& settings) {
  RunContext context = run_context(line, *session.device, settings);
  if (!line.shard.empty()) {
    context.settings.shard_index = session.shard.index;
    context.settings.shard_count = session.shard.count;
  }
  context.settings.selection_cases = session.selection_cases;
  context.settings.selection_digest = session.selection_digest;
  return context;
}

std::filesystem::path output_path(const CommandLine& line) {
  return line.out.empty() ? std::filesystem::path("fla-bench-" + utc_time("%Y%m%d-%H%M%S") + ".json")
                          : std::filesystem::path(line.out);
}

}  // namespace flabench
