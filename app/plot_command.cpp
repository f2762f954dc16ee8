#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "app/commands.h"
#include "suites/usage_error.h"

extern char** environ;

namespace flabench {
namespace {

// Where the Python side lives: the source tree's plots/ and a python3 with matplotlib, as found at configure
// time; FLA_BENCH_PLOTS_DIR and FLA_BENCH_PYTHON override them.
std::string setting(const char* variable, const char* built_in) {
  const char* value = std::getenv(variable);
  return value && *value ? value : built_in;
}

int run_python_script(const std::string& script_name, const CommandLine& line) {
  const std::filesystem::path script =
      std::filesystem::path(setting("FLA_BENCH_PLOTS_DIR", FLA_BENCH_PLOTS_DIR)) / script_name;
  if (!std::filesystem::exists(script))
    throw std::runtime_error(script.string() +
                             " is missing (set FLA_BENCH_PLOTS_DIR to fla-bench's plots/ folder)");
  const std::string python = setting("FLA_BENCH_PYTHON", FLA_BENCH_PYTHON);
  std::vector<std::string> arguments{python, script.string()};
  arguments.insert(arguments.end(), line.inputs.begin(), line.inputs.end());
  arguments.insert(arguments.end(), {"-o", line.output_dir});
  if (!line.history_file.empty()) arguments.insert(arguments.end(), {"--history", line.history_file});
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawnp(&child, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot run " + python +
                             " (plots need python3 with matplotlib: apt-get install python3-matplotlib; "
                             "FLA_BENCH_PYTHON names another interpreter)");
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int plot_command(const CommandLine& line) {
  return run_python_script("plot_results.py", line);
}

int report_command(const CommandLine& line) {
  return run_python_script("report.py", line);
}

}  // namespace flabench
