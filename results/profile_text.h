// What `fla-bench profile` prints under a case's row: its counters in one line (DRAM bytes against the op's
// byte floor, occupancy, throughput, tensor pipes, L2, spills, bank conflicts) and each kernel's share of the
// op's GPU time, so the console answers "how close to the hardware, and where does the time go".
#pragma once

#include <string>
#include <vector>

#include "results/record.h"

namespace flabench {

// Empty when the case has neither counters nor kernel times.
std::vector<std::string> profile_lines(const CaseRecord& record);

}  // namespace flabench
