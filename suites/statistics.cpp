#include "suites/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace flabench {

TimingRecord summarize_samples(std::vector<double> samples_ms, std::vector<double> issue_ms) {
  TimingRecord t;
  if (!issue_ms.empty()) {
    std::sort(issue_ms.begin(), issue_ms.end());
    t.issue_ms = quantile_of_sorted(issue_ms, 0.5);
  }
  t.samples = static_cast<std::int64_t>(samples_ms.size());
  if (samples_ms.empty()) return t;
  t.samples_ms = samples_ms;
  std::sort(samples_ms.begin(), samples_ms.end());
  t.min_ms = samples_ms.front();
  t.max_ms = samples_ms.back();
  t.median_ms = quantile_of_sorted(samples_ms, 0.5);
  t.q1_ms = quantile_of_sorted(samples_ms, 0.25);
  t.q3_ms = quantile_of_sorted(samples_ms, 0.75);
  t.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(t.samples);
  double squares = 0;
  for (double x : samples_ms) squares += (x - t.mean_ms) * (x - t.mean_ms);
  t.stddev_ms = t.samples > 1 ? std::sqrt(squares / static_cast<double>(t.samples - 1)) : 0.0;
  return t;
}

}  // namespace flabench
