// The subcommands. Each returns the process exit status: 0 all cases passed, 1 a case failed (check or
// error); bad input throws UsageError (status 2).
#pragma once

#include "app/options.h"

namespace flabench {

int run_command(const CommandLine& line);
int list_command(const CommandLine& line);
int check_command(const CommandLine& line);

// Runs `cases` with `settings`, printing the table and writing the result file.
int execute_cases(const CommandLine& line, Session& session, const std::vector<Case>& cases,
                  const RunSettings& settings);

}  // namespace flabench
