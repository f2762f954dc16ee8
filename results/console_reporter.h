// A readable table on the terminal, one row per case as it finishes; at the end the counts (per family for a
// check battery) and every failed case with what failed and how to reproduce it.
#pragma once

#include <map>
#include <ostream>
#include <vector>

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
  struct Counts {
    int ok = 0, failed = 0, skipped = 0;
  };

  std::ostream& out_;
  std::size_t name_width_;
  bool timed_ = true;
  std::map<std::string, Counts> families_;
  std::vector<CaseRecord> failures_;
};

}  // namespace flabench
