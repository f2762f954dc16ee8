#include "suites/shards.h"

#include <algorithm>
#include <numeric>

#include "kernels/common/format.h"
#include "suites/usage_error.h"

namespace flabench {
namespace {

// Recurrent-form FLOPs a naive kernel gets through during one timed case's worth of samples (about 1e11 at
// 1 TFLOP/s over 0.1 s): a case this large costs about twice a small one.
constexpr double kFlopsPerCostUnit = 1e11;

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  ShardSpec spec;
  char slash = 0, rest = 0;
  const int read = std::sscanf(text.c_str(), "%d%c%d%c", &spec.index, &slash, &spec.count, &rest);
  if (read != 3 || slash != '/' || spec.count < 1 || spec.index < 1 || spec.index > spec.count)
    throw UsageError("--shard: '" + text + "' is not I/N with 1 <= I <= N, e.g. 2/4");
  return spec;
}

double expected_cost(const Case& c) {
  if (c.skip_reason) return 0;
  return 1 + case_flops(*c.op, c.problem, c.mode) / kFlopsPerCostUnit;
}

std::vector<Case> shard_cases(const std::vector<Case>& cases, ShardSpec spec) {
  std::vector<std::size_t> order(cases.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> cost(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) cost[i] = expected_cost(cases[i]);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cost[a] != cost[b] ? cost[a] > cost[b] : cases[a].name < cases[b].name;
  });
  std::vector<double> load(static_cast<std::size_t>(spec.count), 0.0);
  std::vector<bool> mine(cases.size(), false);
  for (std::size_t i : order) {
    const auto lightest = std::min_element(load.begin(), load.end()) - load.begin();
    load[lightest] += cost[i];
    mine[i] = lightest == spec.index - 1;
  }
  std::vector<Case> slice;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (mine[i]) slice.push_back(cases[i]);
  return slice;
}

std::string selection_digest(const std::vector<Case>& cases) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const Case& c : cases) {
    for (unsigned char ch : c.name + "\n") {
      hash ^= ch;
      hash *= 1099511628211ull;
    }
  }
  return format("%016llx", static_cast<unsigned long long>(hash));
}

}  // namespace flabench
