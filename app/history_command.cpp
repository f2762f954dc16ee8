#include <iostream>

#include "app/commands.h"
#include "results/comparison_text.h"
#include "suites/usage_error.h"

namespace flabench {

int history_command(const CommandLine& line) {
  if (!line.history_add.empty()) {
    try {
      std::cout << "filed: " << add_to_history(line.inputs[0], line.history_add).string() << "\n";
    } catch (const ResultFileError& e) {
      throw UsageError(std::string("--add: ") + e.what());
    }
    return 0;
  }
  const HistorySettings settings{line.lookback, HistorySettings{}.min_points, line.threshold, line.min_z};
  History history;
  try {
    history = analyse_history(line.inputs[0], settings, line.last_runs, case_selector(line.filter));
  } catch (const ResultFileError& e) {
    throw UsageError(e.what());
  }
  if (history.cases.empty())
    throw UsageError("no case matches --filter '" + line.filter + "' in the history");
  print_history(std::cout, history);
  write_json_out(line, history_json(history));
  return line.fail_on_regression && !history.regressed_at_newest().empty() ? 1 : 0;
}

}  // namespace flabench
