#include "suites/runner.h"

#include <chrono>
#include <map>
#include <optional>
#include <utility>

#include "profiles/nvtx_range.h"
#include "suites/case_guard.h"
#include "suites/case_profiler.h"
#include "suites/case_tensors.h"
#include "suites/checks.h"
#include "suites/inputs.h"
#include "suites/statistics.h"

namespace flabench {
namespace {

// Consecutive cases of one op and shape share their inputs; generating them can take seconds at 24K tokens.
class InputCache {
 public:
  const HostValuesMap& inputs(const OpSpec& op, const Problem& p, std::uint64_t seed) {
    refresh(op, p, seed);
    if (!inputs_) inputs_ = make_input_values(op, p, seed);
    return *inputs_;
  }
  const HostValuesMap& grad_outputs(const OpSpec& op, const Problem& p, std::uint64_t seed) {
    refresh(op, p, seed);
    if (!grad_outputs_) grad_outputs_ = make_grad_output_values(op, p, seed + 1);
    return *grad_outputs_;
  }

 private:
  void refresh(const OpSpec& op, const Problem& p, std::uint64_t seed) {
    Problem key = p;
    key.chunk_size = 0;
    if (op_ == &op && key_ == key && seed_ == seed) return;
    op_ = &op, key_ = key, seed_ = seed;
    inputs_.reset();
    grad_outputs_.reset();
  }

  const OpSpec* op_ = nullptr;
  Problem key_;
  std::uint64_t seed_ = 0;
  std::optional<HostValuesMap> inputs_, grad_outputs_;
};

// A case ready to run on the device: its tensors hold the inputs, `run` is one call (forward, and backward in
// fwdbwd) inside NVTX ranges named after the case, so ncu and nsys can pick it out.
class ReadyCase {
 public:
  ReadyCase(Device& device, const Case& c, const RunSettings& settings, InputCache& cache)
      : device_(device), case_(c), tensors_(device, *c.op, *c.variant, c.problem, c.mode), ranges_(c.name) {
    restore_inputs(settings, cache);
  }

  MemoryRecord memory() const { return {tensors_.tensor_bytes(), tensors_.workspace.size()}; }

  void run() {
    const bool backward = case_.mode == Mode::fwdbwd;
    const Problem& p = case_.problem;
    const NvtxRange case_range(ranges_);
    {
      const NvtxRange range("forward");
      case_.variant->forward(
          {p, tensors_.inputs, tensors_.outputs, tensors_.workspace, device_.stream(), backward});
    }
    if (backward) {
      const NvtxRange range("backward");
      case_.variant->backward(
          {p, tensors_.inputs, tensors_.grad_outputs, tensors_.grads, tensors_.workspace, device_.stream()});
    }
  }

  // The inputs as generated (a variant must not change them, but a profile pass must not depend on that).
  void restore_inputs(const RunSettings& settings, InputCache& cache) {
    tensors_.upload(cache.inputs(*case_.op, case_.problem, settings.seed), tensors_.inputs);
    if (case_.mode == Mode::fwdbwd)
      tensors_.upload(cache.grad_outputs(*case_.op, case_.problem, settings.seed), tensors_.grad_outputs);
  }

 private:
  Device& device_;
  const Case& case_;
  CaseTensors tensors_;
  NvtxPath ranges_;  // the case's NVTX ranges, registered once: `run` is what gets timed
};

}  // namespace

CaseRecord base_record(const std::string& name, const OpSpec& op, const std::string& variant, Mode mode,
                       const Problem& p) {
  CaseRecord r;
  r.name = name;
  r.op = op.name;
  r.variant = variant;
  r.mode = mode_name(mode);
  r.dtype = dtype_name(p.dtype);
  r.B = p.B, r.T = p.T, r.H = p.H, r.K = p.K, r.V = p.V, r.M = p.M, r.G = p.G;
  r.chunk_size = p.chunk_size;
  r.scale = p.scale;
  return r;
}

DerivedRecord derive_metrics(const Case& c, const TimingRecord& timing, double floor_bandwidth_gbs) {
  DerivedRecord d;
  const double seconds = timing.median_ms * 1e-3;
  if (seconds <= 0) return d;
  d.tokens_per_s = static_cast<double>(c.problem.tokens()) / seconds;
  d.flops = case_flops(*c.op, c.problem, c.mode);
  d.tflops_per_s = d.flops / seconds / 1e12;
  d.floor_bytes = floor_bytes(*c.op, c.problem, c.mode);
  d.achieved_gbs = d.floor_bytes / seconds / 1e9;
  if (floor_bandwidth_gbs > 0) {
    d.floor_ms = d.floor_bytes / (floor_bandwidth_gbs * 1e9) * 1e3;
    d.floor_pct = 100.0 * d.floor_ms / timing.median_ms;
  }
  return d;
}

RunSummary run_cases(Device& device, const std::vector<Case>& cases, const RunSettings& settings,
                     Reporter& reporter, CaseProfiler* profiler) {
  const auto start = std::chrono::steady_clock::now();
  RunSummary summary;
  InputCache cache;
  std::map<std::string, CheckRecord> checks;  // by the name of the checked (shortened) case
  CaseGuard guard;

  for (const Case& c : cases) {
    CaseRecord record = base_record(c.name, *c.op, c.variant->name, c.mode, c.problem);
    guard.run(record, c.skip_reason, [&] {
      if (settings.profile_once) {
        ReadyCase(device, c, settings, cache).run();
        device.synchronize();
        return;
      }
      if (settings.check) {
        const Problem checked = check_problem(c.problem);
        const std::string key = case_name(*c.op, *c.variant, c.mode, checked);
        auto found = checks.find(key);
        if (found == checks.end())
          found =
              checks.emplace(key, run_check(device, *c.op, *c.variant, checked, c.mode, settings.seed)).first;
        record.check = found->second;
      }
      if (settings.time || profiler) {
        ReadyCase ready(device, c, settings, cache);
        record.memory = ready.memory();
        if (settings.time) {
          CaseTimes times = time_case(
              device, c.name, [&] { ready.run(); }, settings.timing);
          record.timing = summarize_samples(std::move(times.device_ms), std::move(times.issue_ms));
          record.derived = derive_metrics(c, *record.timing, settings.floor_bandwidth_gbs);
        }
        if (profiler) {
          const auto restore = [&] {
            ready.restore_inputs(settings, cache);
            device.flush_l2();
          };
          profiler->profile(
              restore, [&] { ready.run(); }, record);
        }
      }
      if (record.check && !record.check->passed) {
        record.status = CaseStatus::failed;
        record.reason = "check failed: " + check_summary(*record.check);
      }
    });
    count_case(summary, record);
    reporter.record(record);
  }
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace flabench
