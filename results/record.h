// The result model: what one run measured, as plain data. suites/ fills it; reporters write it; compare,
// history and plots read it back. The JSON form is documented in results/SCHEMA.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flabench {

inline constexpr const char* kResultSchemaName = "fla-bench-result";
// Semantic version of the JSON layout: a reader refuses another major version.
inline constexpr const char* kResultSchemaVersion = "1.7.0";

struct DeviceRecord {
  std::string backend;  // "cuda" or "cpu"
  int index = 0;
  std::string name;
  std::string uuid;
  int compute_capability = 0;  // 90 for sm_90
  int sm_count = 0;            // multiprocessors (cuda) or hardware threads (cpu)
  double sm_clock_mhz = 0;     // peak
  double memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  double memory_bytes = 0;
  double l2_bytes = 0;
  double shared_memory_per_block = 0;
  double bandwidth_theoretical_gbs = 0;  // from clocks and bus width; 0 where unknown
  double bandwidth_measured_gbs = 0;     // a device-to-device copy, bytes read + written
  std::string cuda_runtime;              // "13.0"
  std::string cuda_driver;
  bool operator==(const DeviceRecord&) const = default;
};

struct SettingsRecord {
  double min_time_s = 0;
  int min_samples = 0;
  double warmup_time_s = 0;
  bool l2_flush = false;
  bool check = false;
  bool time = false;
  std::uint64_t seed = 0;
  double floor_bandwidth_gbs = 0;      // the bandwidth the byte floor is timed at
  std::string floor_bandwidth_source;  // "measured", "theoretical" or "user"
  // A shard of a larger selection (--shard I/N): I and N, 0 when the run is the whole selection; the whole
  // selection's case count and a digest of its case names, so `fla-bench merge` can tell a shard is missing.
  int shard_index = 0, shard_count = 0;
  std::int64_t selection_cases = 0;
  std::string selection_digest{};
  bool operator==(const SettingsRecord&) const = default;
};

struct RunContext {
  std::string schema = kResultSchemaName;
  std::string schema_version = kResultSchemaVersion;
  std::string started_utc;  // ISO 8601
  std::string host;
  std::string fla_bench_version;
  std::string git_sha;
  bool git_dirty = false;
  std::vector<std::string> command_line;
  DeviceRecord device;
  SettingsRecord settings;
  // The run's FLA_* and CUDA_* environment variables (a kernel's A/B switch, CUDA_VISIBLE_DEVICES, ...): two
  // runs of one binary can time different code, and the file must say which. Empty in files before 1.7.
  std::map<std::string, std::string> environment{};
  bool operator==(const RunContext&) const = default;
};

struct TimingRecord {
  std::int64_t samples = 0;
  double median_ms = 0, mean_ms = 0, stddev_ms = 0, min_ms = 0, max_ms = 0, q1_ms = 0, q3_ms = 0;
  std::vector<double> samples_ms;
  // The host's time to issue the call (from its start to its return; median): near median_ms, the launches
  // bound the call rather than its kernels. 0 in files before schema 1.5.
  double issue_ms = 0;
  bool operator==(const TimingRecord&) const = default;
};

struct DerivedRecord {
  double tokens_per_s = 0;
  double flops = 0;
  double tflops_per_s = 0;
  double floor_bytes = 0;
  double floor_ms = 0;      // floor_bytes at the settings' floor bandwidth
  double achieved_gbs = 0;  // floor_bytes / median time
  double floor_pct = 0;     // floor_ms / median_ms * 100
  bool operator==(const DerivedRecord&) const = default;
};

struct TensorCheckRecord {
  std::string tensor;
  double rms_ratio = 0;  // RMS(ref - x) / RMS(ref)
  double max_abs = 0;    // max |ref - x|
  double threshold = 0;
  std::int64_t nonfinite = 0;  // NaN or Inf elements in x
  bool passed = false;
  std::string detail{};  // what a non-numeric check found, e.g. "3 elements changed"
  bool operator==(const TensorCheckRecord&) const = default;
};

struct CheckRecord {
  bool passed = false;
  std::string shape;  // the (possibly shortened) shape checked, "B2-T257-H3-K64-V64"
  std::vector<TensorCheckRecord> tensors;
  bool operator==(const CheckRecord&) const = default;
};

// Hardware counters of a case (fla-bench profile), or why there are none.
struct KernelCounterRecord {
  std::string kernel;
  std::map<std::string, double> metrics;  // by CUPTI metric name
  bool operator==(const KernelCounterRecord&) const = default;
};

struct CounterRecord {
  bool available = false;
  std::string reason;  // why unavailable
  std::string chip;
  int passes = 0;
  std::vector<std::string> dropped;       // metrics of the set this chip lacks
  std::map<std::string, double> metrics;  // the case's totals over its kernels
  std::vector<KernelCounterRecord> kernels;
  bool operator==(const CounterRecord&) const = default;
};

// The device memory a timed case holds while it runs: its tensors (inputs, outputs and, in fwdbwd, the
// incoming gradients and the gradients) and the variant's workspace for that mode on that device.
struct MemoryRecord {
  std::uint64_t tensor_bytes = 0;
  std::uint64_t workspace_bytes = 0;
  bool operator==(const MemoryRecord&) const = default;
};

// A kernel's share of the case (CUPTI activity records).
struct KernelTimeRecord {
  std::string kernel;
  double calls = 0;  // per run of the case
  double ms = 0;     // GPU time per run
  double share_pct = 0;
  bool operator==(const KernelTimeRecord&) const = default;
};

// One launch of one run of the case on the GPU's clock (CUPTI activity records): which stream and when.
struct LaunchRecord {
  std::string kernel;
  int stream = 0;  // 0: the stream of the run's first launch, then 1, 2, ... in order of first use
  double start_ms = 0, end_ms = 0;  // from the run's first start
  bool operator==(const LaunchRecord&) const = default;
};

// One line: "ok 2.1e-03 (dk)" (the tensor closest to its threshold) or "FAIL dk 3.1e-02 > 6.0e-03".
std::string check_summary(const CheckRecord& check);

enum class CaseStatus { ok, failed, skipped };

std::string_view status_name(CaseStatus status);
std::optional<CaseStatus> parse_status(std::string_view text);

struct CaseRecord {
  std::string name;
  std::string family{};  // the check battery's family; empty for benchmark cases
  std::string op, variant, mode, dtype;
  std::int64_t B = 0, T = 0, H = 0, K = 0, V = 0;
  std::int64_t M = 0, G = 1;  // slots and query heads per key head, for the ops that have them
  int chunk_size = 0;
  double scale = 0;
  CaseStatus status = CaseStatus::ok;
  std::string reason;       // why skipped or failed
  std::string reproduce{};  // a failed battery case: the command that runs it alone
  std::string device{};     // the GPU it ran on ("cuda:2") when a run spreads over several (--devices)
  std::optional<TimingRecord> timing;
  std::optional<DerivedRecord> derived;
  std::optional<MemoryRecord> memory;
  std::optional<CheckRecord> check;
  std::optional<CounterRecord> counters;
  std::optional<std::vector<KernelTimeRecord>> kernel_times;
  std::optional<std::vector<LaunchRecord>> timeline;  // the last traced run's launches, in order of start
  bool operator==(const CaseRecord&) const = default;
};

struct RunSummary {
  int cases = 0, ok = 0, failed = 0, skipped = 0;
  double wall_s = 0;
  bool operator==(const RunSummary&) const = default;
};

// A whole result file; `complete` is false for the record of a run that stopped early.
struct ResultFile {
  RunContext context;
  std::vector<CaseRecord> cases;
  std::optional<RunSummary> summary;
  bool complete = false;
};

}  // namespace flabench
