#include "profiles/launch_timeline.h"

#include <algorithm>
#include <map>

namespace flabench {
namespace {

// Launches a run of `runs` made, or 0 where the records do not split into that many equal runs.
std::size_t launches_per_run(const std::vector<TracedLaunch>& records, int runs) {
  if (runs < 1 || records.empty() || records.size() % std::size_t(runs) != 0) return 0;
  return records.size() / std::size_t(runs);
}

}  // namespace

std::vector<LaunchSpan> last_run_timeline(std::vector<TracedLaunch> records, int runs) {
  const std::size_t per_run = launches_per_run(records, runs);
  if (per_run == 0) return {};
  std::sort(records.begin(), records.end(),
            [](const TracedLaunch& a, const TracedLaunch& b) { return a.start_ns < b.start_ns; });
  const auto first = records.end() - std::ptrdiff_t(per_run);
  const std::uint64_t origin = first->start_ns;
  std::map<std::uint32_t, int> streams;
  std::vector<LaunchSpan> spans;
  for (auto r = first; r != records.end(); ++r) {
    const int stream = streams.emplace(r->stream, int(streams.size())).first->second;
    spans.push_back({r->kernel, stream, (r->start_ns - origin) * 1e-6, (r->end_ns - origin) * 1e-6});
  }
  return spans;
}

std::vector<std::string> first_run_launches(std::vector<TracedLaunch> records, int runs) {
  const std::size_t per_run = launches_per_run(records, runs);
  if (per_run == 0) return {};
  records.resize(per_run);  // a run's launches all complete before the next run's start
  std::sort(records.begin(), records.end(),
            [](const TracedLaunch& a, const TracedLaunch& b) { return a.correlation < b.correlation; });
  std::vector<std::string> kernels;
  for (const TracedLaunch& r : records) kernels.push_back(r.kernel);
  return kernels;
}

}  // namespace flabench
