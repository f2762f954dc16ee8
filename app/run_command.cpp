#include <algorithm>
#include <iostream>

#include "app/commands.h"
#include "results/console_reporter.h"
#include "results/result_file.h"
#include "suites/usage_error.h"

namespace flabench {

int execute_cases(const CommandLine& line, Session& session, const std::vector<Case>& cases,
                  const RunSettings& settings) {
  std::unique_ptr<JsonFileReporter> file;
  try {
    file = std::make_unique<JsonFileReporter>(output_path(line));
  } catch (const ResultFileError& e) {
    throw UsageError(std::string("--out: ") + e.what());
  }
  std::size_t name_width = 4;
  for (const Case& c : cases) name_width = std::max(name_width, c.name.size());
  ConsoleReporter console(std::cout, name_width);
  ReporterFanout reporters({&console, file.get()});
  reporters.begin(run_context(line, *session.device, settings));
  const RunSummary summary = run_cases(*session.device, cases, settings, reporters);
  reporters.end(summary);
  std::cout << "results: " << file->path().string() << "\n";
  return summary.failed > 0 ? 1 : 0;
}

int run_command(const CommandLine& line) {
  Session session = open_session(line);
  return execute_cases(line, session, session.cases, run_settings(line, *session.device));
}

}  // namespace flabench
