#include <algorithm>

#include "app/commands.h"
#include "suites/checks.h"

namespace flabench {

// The spot checks alone: each selected case on its shortened check shape, each distinct one once.
int check_command(const CommandLine& line) {
  Session session = open_session(line);
  std::vector<Case> checks;
  for (Case c : session.cases) {
    c.problem = check_problem(c.problem);
    c.name = case_name(*c.op, *c.variant, c.mode, c.problem);
    const bool seen =
        std::any_of(checks.begin(), checks.end(), [&](const Case& other) { return other.name == c.name; });
    if (!seen) checks.push_back(std::move(c));
  }
  RunSettings settings = run_settings(line, *session.device);
  settings.time = false;
  settings.check = true;
  return execute_cases(line, session, checks, settings);
}

}  // namespace flabench
