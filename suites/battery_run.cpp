// Runs the check battery: inputs and fp64 references shared between cases, one record per case.
#include <chrono>
#include <map>
#include <optional>

#include "suites/battery.h"
#include "suites/battery_probes.h"
#include "suites/case_guard.h"
#include "suites/runner.h"

namespace flabench {
namespace {

// Inputs and reference results of the cases of one op and dtype, by what determines them (mode, shape,
// decay scenario): the variants of an op and the families on the same shape share them.
class PreparedInputs {
 public:
  struct Entry {
    CheckInputs inputs;
    std::optional<CallResults> reference;
  };

  Entry& get(const BatteryCase& c, std::uint64_t seed) {
    const std::string scope = c.op->name + "/" + std::string(dtype_name(c.problem.dtype));
    if (scope != scope_) entries_.clear(), scope_ = scope;  // a finished op and dtype is not needed again
    const std::string key = std::string(mode_name(c.mode)) + "/" + shape_label(c.problem) + "/" +
                            std::to_string(static_cast<int>(c.decay)) + "/" +
                            std::string(magnitude_name(c.magnitude));
    auto found = entries_.find(key);
    if (found == entries_.end())
      found = entries_.emplace(key, Entry{battery_inputs(c, seed), std::nullopt}).first;
    return found->second;
  }

 private:
  std::string scope_;
  std::map<std::string, Entry> entries_;
};

// `name` as a regex that matches itself only.
std::string exact_regex(const std::string& name) {
  std::string regex = "^";
  for (char ch : name) {
    if (std::string_view("\\^$.|?*+()[]{}").find(ch) != std::string_view::npos) regex += '\\';
    regex += ch;
  }
  return regex + "$";
}

}  // namespace

CaseRecord battery_record(const BatteryCase& c) {
  CaseRecord r = base_record(c.name, *c.op, variant_label(c), c.mode, c.problem);
  r.family = family_name(c.family);
  return r;
}

struct BatteryRunner::State {
  Device& device;
  std::uint64_t seed;
  std::string reproduce_prefix;
  PreparedInputs prepared;
  CaseGuard guard;
};

BatteryRunner::BatteryRunner(Device& device, std::uint64_t seed, std::string reproduce_prefix)
    : state_(new State{device, seed, std::move(reproduce_prefix), {}, {}}) {}

BatteryRunner::~BatteryRunner() = default;

CaseRecord BatteryRunner::run(const BatteryCase& c) {
  State& s = *state_;
  CaseRecord record = battery_record(c);
  std::optional<SharedMemoryCap> cap;
  if (c.shared_memory_cap) cap.emplace(c.shared_memory_cap);
  s.guard.run(record, c.skip_reason, [&] {
    PreparedInputs::Entry& entry = s.prepared.get(c, s.seed);
    const ReferenceSource reference = [&]() -> const CallResults& {
      if (!entry.reference) entry.reference = reference_results(*c.op, c.problem, entry.inputs);
      return *entry.reference;
    };
    record.check = run_probe(s.device, c, entry.inputs, reference);
    if (!record.check->passed) {
      record.status = CaseStatus::failed;
      record.reason = "check failed: " + check_summary(*record.check);
    }
  });
  if (record.status == CaseStatus::failed)
    record.reproduce =
        s.reproduce_prefix + " --filter '" + exact_regex(c.name) + "' --seed " + std::to_string(s.seed);
  return record;
}

RunSummary run_battery(Device& device, const std::vector<BatteryCase>& cases, std::uint64_t seed,
                       const std::string& reproduce_prefix, Reporter& reporter) {
  const auto start = std::chrono::steady_clock::now();
  RunSummary summary;
  BatteryRunner runner(device, seed, reproduce_prefix);
  for (const BatteryCase& c : cases) {
    const CaseRecord record = runner.run(c);
    count_case(summary, record);
    reporter.record(record);
  }
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace flabench
