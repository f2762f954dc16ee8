// Statistics of stored timing samples, for comparing runs: quantiles, robust spread and a rank test.
#pragma once

#include <span>
#include <vector>

namespace flabench {

// The q-quantile of sorted values by linear interpolation between order statistics (0 for none).
double quantile_of_sorted(const std::vector<double>& sorted, double q);

double median_of(std::vector<double> values);

// Median absolute deviation from the median.
double median_absolute_deviation(const std::vector<double>& values);

// The Mann-Whitney U test of two independent samples: U of `a` (the number of pairs in which the element of
// `a` is larger, ties counting half), and the two-sided p-value of "neither tends to be larger". Exact for
// small samples without ties (n_a * n_b <= 400); otherwise the normal approximation with tie and continuity
// corrections. Robust to the skewed, outlier-prone distributions of GPU timings, unlike a t-test.
struct RankTest {
  double u = 0;
  double p_value = 1;
};
RankTest mann_whitney(std::span<const double> a, std::span<const double> b);

}  // namespace flabench
