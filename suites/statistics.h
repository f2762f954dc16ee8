// Summary statistics of timing samples.
#pragma once

#include <vector>

#include "results/record.h"
#include "results/statistics.h"

namespace flabench {

// Median and quartiles by linear interpolation between order statistics; stddev with n - 1. `issue_ms`, the
// host's time to issue each sample's call, gives the record's issue_ms (their median; 0 where none).
TimingRecord summarize_samples(std::vector<double> samples_ms, std::vector<double> issue_ms = {});

}  // namespace flabench
