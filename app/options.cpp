#include "app/options.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>

#include "app/build_info.h"
#include "suites/usage_error.h"

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

}  // namespace

void add_selection_options(CLI::App& app, CommandLine& line) {
  app.add_option("--filter", line.filter,
                 "regex searched in case names, e.g. 'rwkv7/naive/fwdbwd/bf16' or 'gla|rwkv6'");
  app.add_option("--axis", line.axes,
                 "NAME=VALUES (repeatable): B, T, H, K, V, D (K=V), C (chunk), dtype, mode; values 1,2,4 or "
                 "start:stop[:step]; sizes also NAME[pow2]=10:14");
  app.add_option("--preset", line.preset, "shape groups or shapes, e.g. peer,fla or B4_T2048_H16_D128")
      ->default_str("peer on a GPU, cpu without");
  app.add_option("--device", line.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
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
  app.add_option("--bandwidth", line.bandwidth_gbs,
                 "GB/s for the byte floor instead of the measured copy rate")
      ->check(at_least(0, false, "a positive bandwidth in GB/s"));
}

Session open_session(const CommandLine& line) {
  const AxisOverrides axes = parse_axes(line.axes);  // bad axes fail before the device is touched
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
  return session;
}

RunSettings run_settings(const CommandLine& line, const Device& device) {
  RunSettings settings;
  settings.timing.min_time_s = line.min_time_s;
  settings.timing.min_samples = line.min_samples;
  settings.timing.warmup_time_s = line.warmup_time_s;
  settings.timing.l2_flush = !line.no_l2_flush;
  settings.check = !line.no_check;
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

std::filesystem::path output_path(const CommandLine& line) {
  return line.out.empty() ? std::filesystem::path("fla-bench-" + utc_time("%Y%m%d-%H%M%S") + ".json")
                          : std::filesystem::path(line.out);
}

}  // namespace flabench
