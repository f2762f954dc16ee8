#include "profiles/counter_session.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>

namespace flabench {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The current driver context, through the runtime (fla-bench does not link the driver library, so it starts
// on machines without one).
CUcontext current_context() {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult status{};
  cudaFree(nullptr);  // make the device's primary context current
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      !entry)
    throw std::runtime_error("cannot reach the CUDA driver's cuCtxGetCurrent");
  CUcontext context = nullptr;
  reinterpret_cast<CUresult (*)(CUcontext*)>(entry)(&context);
  return context;
}

}  // namespace

CounterSession::CounterSession(const CuptiLibrary& cupti, CounterHost& host, const MetricPlan& plan,
                               int max_kernels)
    : cupti_(cupti), host_(host), plan_(plan), max_kernels_(max_kernels) {
  auto enable = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = current_context();
  cupti_check(cupti_, cupti_.cuptiRangeProfilerEnable(&enable), "enabling the range profiler");
  profiler_ = enable.pRangeProfilerObject;

  std::vector<const char*> names = c_strings(plan_.metrics);
  auto size = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = profiler_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = static_cast<std::size_t>(max_kernels_);
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_kernels_);
  cupti_check(cupti_, cupti_.cuptiRangeProfilerGetCounterDataSize(&size), "sizing the counter data");
  counter_data_.resize(size.counterDataSize);
}

CounterSession::~CounterSession() {
  auto disable = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
  disable.pRangeProfilerObject = profiler_;
  cupti_.cuptiRangeProfilerDisable(&disable);
}

std::vector<KernelCounters> CounterSession::collect(const std::function<void()>& restore,
                                                    const std::function<void()>& run) {
  auto initialize = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  initialize.pRangeProfilerObject = profiler_;
  initialize.counterDataSize = counter_data_.size();
  initialize.pCounterData = counter_data_.data();
  cupti_check(cupti_, cupti_.cuptiRangeProfilerCounterDataImageInitialize(&initialize),
              "resetting the counter data");

  auto config = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  config.pRangeProfilerObject = profiler_;
  config.configSize = plan_.config_image.size();
  config.pConfig = plan_.config_image.data();
  config.counterDataImageSize = counter_data_.size();
  config.pCounterDataImage = counter_data_.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_UserReplay;
  config.maxRangesPerPass = static_cast<std::size_t>(max_kernels_);
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.targetNestingLevel = 1;
  cupti_check(cupti_, cupti_.cuptiRangeProfilerSetConfig(&config), "configuring the range profiler");

  for (bool submitted = false; !submitted;) {
    restore();
    cudaDeviceSynchronize();
    auto start = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = profiler_;
    cupti_check(cupti_, cupti_.cuptiRangeProfilerStart(&start), "starting a pass");
    run();
    cudaDeviceSynchronize();
    auto stop = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = profiler_;
    cupti_check(cupti_, cupti_.cuptiRangeProfilerStop(&stop), "stopping a pass");
    submitted = stop.isAllPassSubmitted != 0;
  }
  auto decode = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = profiler_;
  cupti_check(cupti_, cupti_.cuptiRangeProfilerDecodeData(&decode), "decoding the counters");
  if (decode.numOfRangeDropped > 0)
    throw std::runtime_error(std::to_string(decode.numOfRangeDropped) +
                             " kernel ranges dropped: a run launched more than " +
                             std::to_string(max_kernels_) + " kernels");

  auto info = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  cupti_check(cupti_, cupti_.cuptiRangeProfilerGetCounterDataInfo(&info), "reading the counter data");
  std::vector<KernelCounters> kernels;
  for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
    auto name = FLA_BENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
    name.pCounterDataImage = counter_data_.data();
    name.counterDataImageSize = counter_data_.size();
    name.rangeIndex = range;
    name.rangeDelimiter = "/";
    cupti_check(cupti_, cupti_.cuptiRangeProfilerCounterDataGetRangeInfo(&name), "naming a range");
    kernels.push_back(
        {name.rangeName ? name.rangeName : "", host_.evaluate(counter_data_, range, plan_.metrics)});
  }
  return kernels;
}

std::vector<double> case_totals(const std::vector<std::string>& metrics,
                                const std::vector<KernelCounters>& kernels) {
  std::vector<double> totals(metrics.size(), 0.0);
  const auto duration_at = std::find(metrics.begin(), metrics.end(), kDurationMetric);
  double total_duration = 0;
  for (const KernelCounters& k : kernels)
    total_duration += duration_at == metrics.end() ? 1.0 : k.values[duration_at - metrics.begin()];
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const bool count = ends_with(metrics[m], ".sum"), largest = ends_with(metrics[m], ".max");
    for (const KernelCounters& k : kernels) {
      const double weight = duration_at == metrics.end() ? 1.0 : k.values[duration_at - metrics.begin()];
      if (count)
        totals[m] += k.values[m];
      else if (largest)
        totals[m] = std::max(totals[m], k.values[m]);
      else if (total_duration > 0)
        totals[m] += k.values[m] * weight / total_duration;
    }
  }
  return totals;
}

}  // namespace flabench
