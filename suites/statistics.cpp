#include "suites/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace flabench {

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

TimingRecord summarize_samples(std::vector<double> samples_ms) {
  TimingRecord t;
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
