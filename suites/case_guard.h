// Runs the work of one case so that a failure stays that case's: an exception marks the record failed with
// its message, and after a sticky CUDA error (the context is lost, so nothing later can run) every later case
// is marked failed with that reason instead of running. Records already made are never lost.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "results/record.h"

namespace flabench {

class CaseGuard {
 public:
  // Marks `record` skipped when there is a `skip_reason`; otherwise runs `work` unless an earlier case lost
  // the context, and marks `record` failed on any exception.
  void run(CaseRecord& record, const std::optional<std::string>& skip_reason,
           const std::function<void()>& work);

 private:
  std::optional<std::string> context_lost_;
};

// Adds one finished case to the run's counts.
void count_case(RunSummary& summary, const CaseRecord& record);

}  // namespace flabench
