// Which hardware counters a profile collects on a chip, checked with the CUPTI Profiler Host API, which works
// from a chip name alone (no GPU, no driver): CI validates every set for GH100 (H100), GA100 (A100) and AD104
// (RTX 4070 Ti) and how many replay passes each needs.
//
// A set names each metric once, by purpose, with the names it goes by on different chips (Ada renames some
// tensor-pipe metrics, only Hopper has warp-group MMA); the first name valid on the chip is used, and a
// purpose with none is left out with that reason.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiles/cupti_library.h"

namespace flabench {

class MetricSetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MetricRequest {
  std::string purpose;                  // "DRAM bytes read"
  std::vector<std::string> candidates;  // CUPTI names, preferred first
};

// "default" (how close to the hardware: DRAM bytes, occupancy, SM throughput, tensor pipes, L2 hit rate,
// local-memory traffic, shared-memory bank conflicts, and the kernel's duration), "deep" (default plus the
// speed-of-light throughputs and instruction counts, more passes), or a comma-separated list of CUPTI metric
// names. Throws MetricSetError for anything else.
std::vector<MetricRequest> metric_requests(const std::string& spec);

struct MetricPlan {
  std::string chip;
  std::vector<std::string> metrics;  // resolved CUPTI names, gpu__time_duration.sum first
  std::vector<std::string> dropped;  // "purpose: why" for each request left out
  int passes = 0;                    // replay passes the whole set needs
  std::vector<std::uint8_t> config_image;
};

// The metric every plan carries: kernel durations weight the per-case averages of ratios.
inline constexpr const char* kDurationMetric = "gpu__time_duration.sum";

// A profiler host object for one chip; `availability` is the device's counter availability image (empty
// offline). Throws CuptiError.
class CounterHost {
 public:
  CounterHost(const CuptiLibrary& cupti, const std::string& chip,
              const std::vector<std::uint8_t>& availability = {});
  ~CounterHost();
  CounterHost(const CounterHost&) = delete;
  CounterHost& operator=(const CounterHost&) = delete;

  bool knows(const std::string& metric) const;
  // Adds `metrics` to the host object's configuration (once) and returns its config image and pass count.
  std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics, int& passes);
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                               const std::vector<std::string>& metrics) const;

 private:
  const CuptiLibrary& cupti_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

// Resolves `requests` for the chip of `host` and builds the configuration. Throws CuptiError.
MetricPlan plan_metrics(CounterHost& host, const std::string& chip,
                        const std::vector<MetricRequest>& requests);

// The chips the loaded CUPTI's Host API knows ("GA100", "GH100", "AD104", ...).
std::vector<std::string> supported_chips(const CuptiLibrary& cupti);

}  // namespace flabench
