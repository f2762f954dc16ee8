// Summary statistics of timing samples.
#pragma once

#include <vector>

#include "results/record.h"
#include "results/statistics.h"

namespace flabench {

// Median and quartiles by linear interpolation between order statistics; stddev with n - 1.
TimingRecord summarize_samples(std::vector<double> samples_ms);

}  // namespace flabench
