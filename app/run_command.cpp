#include <iostream>

#include "app/commands.h"
#include "app/run_output.h"
#include "profiles/metric_plan.h"
#include "suites/case_profiler.h"
#include "suites/usage_error.h"

namespace flabench {

int execute_cases(const CommandLine& line, Session& session, const std::vector<Case>& cases,
                  const RunSettings& settings, CaseProfiler* profiler) {
  RunOutput output(line, RunOutput::longest_name(cases));
  output.reporter().begin(run_context(line, session, settings));
  return output.finish(run_cases(*session.device, cases, settings, output.reporter(), profiler));
}

int profile_command(const CommandLine& line) {
  Session session = open_session(line);
  std::unique_ptr<CaseProfiler> profiler;
  try {
    profiler =
        std::make_unique<CaseProfiler>(*session.device, ProfileSettings{line.metrics, !line.no_kernel_times});
  } catch (const MetricSetError& e) {
    throw UsageError(e.what());
  }
  std::cerr << "fla-bench: " << profiler->summary() << "\n";
  return execute_cases(line, session, session.cases, run_settings(line, *session.device), profiler.get());
}

int run_command(const CommandLine& line) {
  Session session = open_session(line);
  return execute_cases(line, session, session.cases, run_settings(line, *session.device));
}

}  // namespace flabench
