#include "suites/case_profiler.h"

#include <algorithm>

#include "kernels/common/format.h"
#include "profiles/counter_probe.h"
#include "profiles/counter_session.h"
#include "profiles/kernel_tracer.h"

namespace flabench {
namespace {

// Kernel launches one run of a case may make: generous for multi-kernel variants (a chunked forward and
// backward launch a handful each).
constexpr int kMaxKernelsPerRun = 64;

}  // namespace

struct CaseProfiler::Counters {
  const CuptiLibrary* cupti = nullptr;
  std::string chip;
  std::unique_ptr<CounterHost> host;
  MetricPlan plan;
};

CaseProfiler::CaseProfiler(Device& device, const ProfileSettings& settings) : settings_(settings) {
  const std::vector<MetricRequest> requests = metric_requests(settings.metrics);  // a bad set fails first
  if (device.backend() != Backend::cuda) {
    unavailable_ = "counters unavailable: the cpu backend has no GPU counters";
    return;
  }
  gpu_ = true;
  const DeviceRecord& d = device.record();
  CounterAccess access = probe_counters(*cupti_platform(), d.index, d.compute_capability);
  if (!access.available) {
    unavailable_ = access.reason;
    return;
  }
  try {
    auto counters = std::make_unique<Counters>();
    std::string why;
    counters->cupti = CuptiLibrary::get(why);
    counters->chip = access.chip;
    counters->host = std::make_unique<CounterHost>(*counters->cupti, access.chip, access.availability_image);
    counters->plan = plan_metrics(*counters->host, access.chip, requests);
    counters_ = std::move(counters);
  } catch (const CuptiError& e) {
    unavailable_ = "counters unavailable: " + explain_counter_failure(e.result(), e.what());
  }
}

CaseProfiler::~CaseProfiler() = default;

std::string CaseProfiler::summary() const {
  if (!counters_) return unavailable_ + "; timing goes on";
  const MetricPlan& plan = counters_->plan;
  std::string text = format("counters: %s, %zu metrics of '%s' in %d passes per case", plan.chip.c_str(),
                            plan.metrics.size(), settings_.metrics.c_str(), plan.passes);
  if (!plan.dropped.empty()) text += format(" (%zu not on this chip)", plan.dropped.size());
  return text;
}

void CaseProfiler::profile(const std::function<void()>& restore, const std::function<void()>& run,
                           CaseRecord& record) {
  // Kernel times first: their trace names the counter ranges, which CUPTI numbers by launch.
  const std::vector<std::string> launches = trace_kernel_times(restore, run, record);
  CounterRecord counters;
  counters.reason = unavailable_;
  if (counters_) {
    const MetricPlan& plan = counters_->plan;
    counters.chip = plan.chip;
    counters.passes = plan.passes;
    counters.dropped = plan.dropped;
    try {
      CounterSession session(*counters_->cupti, *counters_->host, plan, kMaxKernelsPerRun);
      const std::vector<KernelCounters> kernels = session.collect(restore, run);
      const std::vector<double> totals = case_totals(plan.metrics, kernels);
      for (std::size_t m = 0; m < plan.metrics.size(); ++m) counters.metrics[plan.metrics[m]] = totals[m];
      const bool named = launches.size() == kernels.size();
      for (std::size_t i = 0; i < kernels.size(); ++i) {
        KernelCounterRecord kernel{named ? launches[i] : "launch " + kernels[i].kernel, {}};
        for (std::size_t m = 0; m < plan.metrics.size(); ++m)
          kernel.metrics[plan.metrics[m]] = kernels[i].values[m];
        counters.kernels.push_back(std::move(kernel));
      }
      counters.available = true;
    } catch (const CuptiError& e) {
      // The cause (privileges, another profiler) holds for the cases after this one too.
      unavailable_ = "counters unavailable: " + explain_counter_failure(e.result(), e.what());
      counters.reason = unavailable_;
      counters_.reset();
    }
  }
  record.counters = counters;
}

std::vector<std::string> CaseProfiler::trace_kernel_times(const std::function<void()>& restore,
                                                          const std::function<void()>& run,
                                                          CaseRecord& record) {
  if (!settings_.kernel_times || !gpu_) return {};
  std::string why;
  std::unique_ptr<KernelTracer> tracer = KernelTracer::start(why);
  if (!tracer) return {};  // the counters' reason already says why CUPTI is missing; nothing to add per case
  restore();
  // Up to kernel_time_runs runs, fewer for a slow case: a quarter second of traced runs is plenty of signal.
  int runs = settings_.kernel_time_runs;
  if (record.timing && record.timing->median_ms > 0)
    runs = std::clamp(int(250.0 / record.timing->median_ms), 1, runs);
  const KernelTrace trace = tracer->measure(run, runs);
  std::vector<KernelTimeRecord> times;
  double total_ms = 0;
  for (const KernelTime& k : trace.kernels) {
    times.push_back({k.kernel, k.calls, k.ms, 0});
    total_ms += k.ms;
  }
  for (KernelTimeRecord& t : times) t.share_pct = total_ms > 0 ? 100 * t.ms / total_ms : 0;
  record.kernel_times = times;
  if (!trace.timeline.empty()) {
    std::vector<LaunchRecord> timeline;
    for (const LaunchSpan& s : trace.timeline) timeline.push_back({s.kernel, s.stream, s.start_ms, s.end_ms});
    record.timeline = timeline;
  }
  return trace.launches;
}

}  // namespace flabench
