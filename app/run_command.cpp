#include <iostream>

#include "app/commands.h"
#include "app/isolation.h"
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
  if (line.isolate || !line.devices.empty())
    throw UsageError(
        "profile runs in this process (CUPTI profiles one process): --isolate and --devices do not apply");
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

namespace {

int serve_run(Session& session, const RunSettings& settings) {
  return serve_cases(
      *session.device, session.cases.size(), [&](std::size_t i) { return session.cases[i].name; },
      [&](std::size_t i) {
        RecordCollector collector;
        run_cases(*session.device, {session.cases[i]}, settings, collector);
        return collector.records.at(0);
      });
}

int run_in_workers(const CommandLine& line, Session& session, const RunSettings& settings) {
  std::vector<IsolatedJob> jobs;
  for (const Case& c : session.cases)
    jobs.push_back({base_record(c.name, *c.op, c.variant->name, c.mode, c.problem), c.skip_reason});
  const IsolationSettings isolation = isolation_settings(line, *session.device);
  RunOutput output(line, RunOutput::longest_name(session.cases));
  output.reporter().begin(run_context(line, session, settings));
  return output.finish(run_isolated(jobs, worker_command(line, "run", settings.floor_bandwidth_gbs),
                                    isolation, output.reporter()));
}

}  // namespace

int run_command(const CommandLine& line) {
  Session session = open_session(line);
  const RunSettings settings = run_settings(line, *session.device);
  if (line.worker) return serve_run(session, settings);
  if (isolated(line, /*check=*/false)) return run_in_workers(line, session, settings);
  return execute_cases(line, session, session.cases, settings);
}

}  // namespace flabench
