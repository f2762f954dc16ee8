// A readable table on the terminal, one row per case as it finishes.
#pragma once

#include <ostream>

#include "results/reporter.h"

namespace flabench {

class ConsoleReporter : public Reporter {
 public:
  // `name_width`: the longest case name of the run, so the columns line up.
  ConsoleReporter(std::ostream& out, std::size_t name_width) : out_(out), name_width_(name_width) {}

  void begin(const RunContext& context) override;
  void record(const CaseRecord& record) override;
  void end(const RunSummary& summary) override;

 private:
  std::ostream& out_;
  std::size_t name_width_;
};

}  // namespace flabench
