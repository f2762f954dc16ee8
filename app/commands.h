// The subcommands. Each returns the process exit status: 0 all cases passed, 1 a case failed (check or
// error) or, with --fail-on-regression, a case regressed; bad input throws UsageError (status 2).
#pragma once

#include "app/options.h"

namespace flabench {

int run_command(const CommandLine& line);
int list_command(const CommandLine& line);
int check_command(const CommandLine& line);
int compare_command(const CommandLine& line);
int profile_command(const CommandLine& line);
int history_command(const CommandLine& line);
int merge_command(const CommandLine& line);
int plot_command(const CommandLine& line);    // runs plots/plot_results.py
int report_command(const CommandLine& line);  // runs plots/report.py

// Runs `cases` with `settings`, printing the table and writing the result file.
int execute_cases(const CommandLine& line, Session& session, const std::vector<Case>& cases,
                  const RunSettings& settings, CaseProfiler* profiler = nullptr);

}  // namespace flabench
