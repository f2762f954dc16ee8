#include "results/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace flabench {
namespace {

constexpr std::size_t kExactPairsLimit = 400;

// Ranks of all values pooled (1-based, ties given their average rank); `tie_term` gets sum(t^3 - t) over tie
// groups, for the variance correction.
std::vector<double> pooled_ranks(const std::vector<double>& pooled, double& tie_term) {
  std::vector<std::size_t> order(pooled.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return pooled[x] < pooled[y]; });
  std::vector<double> ranks(pooled.size());
  tie_term = 0;
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && pooled[order[end]] == pooled[order[start]]) ++end;
    const double average = 0.5 * static_cast<double>(start + 1 + end);
    for (std::size_t i = start; i < end; ++i) ranks[order[i]] = average;
    const double t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    start = end;
  }
  return ranks;
}

// P(U <= u) under the null hypothesis without ties: counts of the arrangements of n_a and n_b elements by U,
// built up one element at a time (c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u)).
double exact_lower_tail(std::size_t n_a, std::size_t n_b, double u) {
  const std::size_t max_u = n_a * n_b;
  // counts[m][n] as a vector over U, kept for the current m and all n.
  std::vector<std::vector<double>> previous(n_b + 1), current(n_b + 1);
  for (std::size_t n = 0; n <= n_b; ++n) previous[n] = {1.0};  // m = 0: one arrangement, U = 0
  for (std::size_t m = 1; m <= n_a; ++m) {
    current[0] = {1.0};  // n = 0: U = 0
    for (std::size_t n = 1; n <= n_b; ++n) {
      std::vector<double>& counts = current[n];
      counts.assign(m * n + 1, 0.0);
      for (std::size_t k = 0; k < previous[n].size(); ++k)
        counts[k + n] += previous[n][k];  // largest is from a
      for (std::size_t k = 0; k < current[n - 1].size(); ++k) counts[k] += current[n - 1][k];  // ... from b
    }
    std::swap(previous, current);
  }
  const std::vector<double>& counts = previous[n_b];
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  double below = 0;
  for (std::size_t k = 0; k <= max_u && static_cast<double>(k) <= u + 1e-9; ++k) below += counts[k];
  return below / total;
}

}  // namespace

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, 0.5);
}

double median_absolute_deviation(const std::vector<double>& values) {
  const double median = median_of(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::abs(v - median));
  return median_of(std::move(deviations));
}

RankTest mann_whitney(std::span<const double> a, std::span<const double> b) {
  RankTest test;
  if (a.empty() || b.empty()) return test;
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  double tie_term = 0;
  const std::vector<double> ranks = pooled_ranks(pooled, tie_term);
  const double n_a = static_cast<double>(a.size()), n_b = static_cast<double>(b.size());
  const double rank_sum_a =
      std::accumulate(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(a.size()), 0.0);
  test.u = rank_sum_a - n_a * (n_a + 1) / 2;
  const double mean = n_a * n_b / 2;

  if (tie_term == 0 && a.size() * b.size() <= kExactPairsLimit) {
    // Two-sided: twice the smaller tail, at most 1 (the distribution is symmetric about its mean).
    const double extreme = std::min(test.u, n_a * n_b - test.u);
    test.p_value = std::min(1.0, 2 * exact_lower_tail(a.size(), b.size(), extreme));
    return test;
  }
  const double n = n_a + n_b;
  const double variance = n_a * n_b / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return test;  // every value equal: no evidence either way
  const double z = (std::abs(test.u - mean) - 0.5) / std::sqrt(variance);
  test.p_value = std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
  return test;
}

}  // namespace flabench
