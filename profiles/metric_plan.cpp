#include "profiles/metric_plan.h"

#include <algorithm>
#include <sstream>

namespace flabench {
namespace {

const std::vector<MetricRequest> kDefaultSet = {
    {"kernel duration", {kDurationMetric}},
    {"DRAM bytes read", {"dram__bytes_read.sum", "dram__bytes_op_read.sum"}},  // the second: GB20x
    {"DRAM bytes written", {"dram__bytes_write.sum", "dram__bytes_op_write.sum"}},
    {"achieved occupancy", {"sm__warps_active.avg.pct_of_peak_sustained_active"}},
    {"SM throughput", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}},
    {"tensor pipes active",
     {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_tensor_cycles_active_v2.avg.pct_of_peak_sustained_elapsed"}},
    {"mma.sync (HMMA) pipe active",
     {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active_v2.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_active"}},  // Blackwell
    {"warp-group MMA (GMMA) instructions, Hopper", {"sm__inst_executed_pipe_tensor_op_gmma.sum"}},
    {"L2 hit rate", {"lts__t_sector_hit_rate.pct"}},
    {"local-memory bytes loaded (spills)", {"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"}},
    {"local-memory bytes stored (spills)", {"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"}},
    {"shared-memory load bank conflicts", {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}},
    {"shared-memory store bank conflicts", {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}},
};

const std::vector<MetricRequest> kDeepExtras = {
    {"memory throughput (speed of light)",
     {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}},
    {"DRAM throughput", {"dram__throughput.avg.pct_of_peak_sustained_elapsed"}},
    {"L1 hit rate", {"l1tex__t_sector_hit_rate.pct"}},
    {"warp instructions executed", {"smsp__inst_executed.sum"}},
    {"elapsed SM cycles", {"sm__cycles_elapsed.avg"}},
    {"shared-memory load wavefronts", {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"}},
    {"shared-memory store wavefronts", {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}},
};

}  // namespace

std::vector<MetricRequest> metric_requests(const std::string& spec) {
  if (spec == "default") return kDefaultSet;
  if (spec == "deep") {
    std::vector<MetricRequest> deep = kDefaultSet;
    deep.insert(deep.end(), kDeepExtras.begin(), kDeepExtras.end());
    return deep;
  }
  std::vector<MetricRequest> requests{{"kernel duration", {kDurationMetric}}};
  std::stringstream list(spec);
  for (std::string name; std::getline(list, name, ',');) {
    if (name.find("__") == std::string::npos || name.find('.') == std::string::npos)
      throw MetricSetError(
          "--metrics: '" + name +
          "' is neither a set (default, deep) nor a CUPTI metric name such as dram__bytes_read.sum");
    if (name != kDurationMetric) requests.push_back({name, {name}});
  }
  return requests;
}

CounterHost::CounterHost(const CuptiLibrary& cupti, const std::string& chip,
                         const std::vector<std::uint8_t>& availability)
    : cupti_(cupti) {
  auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = chip.c_str();
  params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  cupti_check(cupti_, cupti_.cuptiProfilerHostInitialize(&params), ("the profiler host for " + chip).c_str());
  host_ = params.pHostObject;
}

CounterHost::~CounterHost() {
  auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  params.pHostObject = host_;
  cupti_.cuptiProfilerHostDeinitialize(&params);
}

bool CounterHost::knows(const std::string& metric) const {
  auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
  params.pHostObject = host_;
  params.pMetricName = metric.c_str();
  return cupti_.cuptiProfilerHostGetMetricProperties(&params) == CUPTI_SUCCESS;
}

std::vector<std::uint8_t> CounterHost::config_image(const std::vector<std::string>& metrics, int& passes) {
  std::vector<const char*> names = c_strings(metrics);
  auto add = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = host_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  cupti_check(cupti_, cupti_.cuptiProfilerHostConfigAddMetrics(&add),
              "adding the metrics to the configuration");
  auto size = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = host_;
  cupti_check(cupti_, cupti_.cuptiProfilerHostGetConfigImageSize(&size), "sizing the configuration image");
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  get.pHostObject = host_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  cupti_check(cupti_, cupti_.cuptiProfilerHostGetConfigImage(&get), "building the configuration image");
  auto count = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  count.configImageSize = image.size();
  count.pConfigImage = image.data();
  cupti_check(cupti_, cupti_.cuptiProfilerHostGetNumOfPasses(&count), "counting the replay passes");
  passes = static_cast<int>(count.numOfPasses);
  return image;
}

std::vector<double> CounterHost::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                                          const std::vector<std::string>& metrics) const {
  std::vector<const char*> names = c_strings(metrics);
  std::vector<double> values(metrics.size());
  auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  params.pHostObject = host_;
  params.pCounterDataImage = counter_data.data();
  params.counterDataImageSize = counter_data.size();
  params.rangeIndex = range;
  params.ppMetricNames = names.data();
  params.numMetrics = names.size();
  params.pMetricValues = values.data();
  cupti_check(cupti_, cupti_.cuptiProfilerHostEvaluateToGpuValues(&params), "evaluating the counters");
  return values;
}

MetricPlan plan_metrics(CounterHost& host, const std::string& chip,
                        const std::vector<MetricRequest>& requests) {
  MetricPlan plan;
  plan.chip = chip;
  for (const MetricRequest& request : requests) {
    const auto found = std::find_if(request.candidates.begin(), request.candidates.end(),
                                    [&](const std::string& name) { return host.knows(name); });
    if (found == request.candidates.end()) {
      std::string tried;
      for (const std::string& name : request.candidates) tried += (tried.empty() ? "" : ", ") + name;
      plan.dropped.push_back(request.purpose + ": not a metric of " + chip + " (" + tried + ")");
      continue;
    }
    if (std::find(plan.metrics.begin(), plan.metrics.end(), *found) == plan.metrics.end())
      plan.metrics.push_back(*found);
  }
  if (!plan.metrics.empty()) plan.config_image = host.config_image(plan.metrics, plan.passes);
  return plan;
}

std::vector<std::string> supported_chips(const CuptiLibrary& cupti) {
  auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  cupti_check(cupti, cupti.cuptiProfilerHostGetSupportedChips(&params), "listing the supported chips");
  return {params.ppChipNames, params.ppChipNames + params.numChips};
}

}  // namespace flabench
