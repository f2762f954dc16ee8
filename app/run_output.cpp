#include "app/run_output.h"

#include <iostream>

#include "suites/usage_error.h"

namespace flabench {
namespace {

std::unique_ptr<JsonFileReporter> open_result_file(const CommandLine& line) {
  try {
    return std::make_unique<JsonFileReporter>(output_path(line));
  } catch (const ResultFileError& e) {
    throw UsageError(std::string("--out: ") + e.what());
  }
}

}  // namespace

RunOutput::RunOutput(const CommandLine& line, std::size_t name_width)
    : file_(open_result_file(line)), console_(std::cout, name_width), fanout_({&console_, file_.get()}) {}

int RunOutput::finish(const RunSummary& summary) {
  fanout_.end(summary);
  std::cout << "results: " << file_->path().string() << "\n";
  return summary.failed > 0 ? 1 : 0;
}

}  // namespace flabench
