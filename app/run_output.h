// Where a run's records go: the console table and the result file, fed together.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "app/options.h"
#include "results/console_reporter.h"
#include "results/result_file.h"

namespace flabench {

class RunOutput {
 public:
  // Opens the result file of --out (a UsageError when it cannot be written); `name_width` lines the table up.
  RunOutput(const CommandLine& line, std::size_t name_width);

  Reporter& reporter() { return fanout_; }
  // Ends the run on both, says where the results are, and returns the exit status: 1 when a case failed.
  int finish(const RunSummary& summary);

  // The longest case name of `cases`, for `name_width`.
  template <class Cases>
  static std::size_t longest_name(const Cases& cases) {
    std::size_t width = 4;
    for (const auto& c : cases) width = std::max(width, c.name.size());
    return width;
  }

 private:
  std::unique_ptr<JsonFileReporter> file_;
  ConsoleReporter console_;
  ReporterFanout fanout_;
};

}  // namespace flabench
