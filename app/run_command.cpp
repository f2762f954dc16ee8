#include "app/commands.h"
#include "app/run_output.h"

namespace flabench {

int execute_cases(const CommandLine& line, Session& session, const std::vector<Case>& cases,
                  const RunSettings& settings) {
  RunOutput output(line, RunOutput::longest_name(cases));
  output.reporter().begin(run_context(line, *session.device, settings));
  return output.finish(run_cases(*session.device, cases, settings, output.reporter()));
}

int run_command(const CommandLine& line) {
  Session session = open_session(line);
  return execute_cases(line, session, session.cases, run_settings(line, *session.device));
}

}  // namespace flabench
