// Reading and writing result files.
//
// A run writes `<out>.partial` as it goes: JSON Lines, the first line {"schema", "schema_version",
// "context"}, then one {"case": ...} line per finished case, flushed to disk each time. At the end the whole
// document is written to `<out>.tmp` and renamed to `<out>`, and the partial file is removed. A run that dies
// leaves the partial file, which read_result_file() reads too (with complete = false): nothing measured is
// lost.
#pragma once

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "results/record.h"
#include "results/reporter.h"

namespace flabench {

class ResultFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a final result file (plain or xz-compressed) or a `.partial` one. Throws ResultFileError naming the
// file and the problem (missing, damaged xz, not JSON, another schema, a newer major schema version, a
// malformed case).
ResultFile read_result_file(const std::filesystem::path& path);

std::filesystem::path partial_path(const std::filesystem::path& path);

// Writes `text` to `<path>.tmp`, flushes it to disk and renames it to `path`, so a reader never sees half a
// file. Throws ResultFileError.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

class JsonFileReporter : public Reporter {
 public:
  // Creates `<path>.partial` at once, so an unwritable path fails before anything is measured.
  explicit JsonFileReporter(std::filesystem::path path);
  ~JsonFileReporter() override;
  JsonFileReporter(const JsonFileReporter&) = delete;
  JsonFileReporter& operator=(const JsonFileReporter&) = delete;

  void begin(const RunContext& context) override;
  void record(const CaseRecord& record) override;
  void end(const RunSummary& summary) override;

  const std::filesystem::path& path() const { return path_; }

 private:
  void append_line(const std::string& line);

  std::filesystem::path path_;
  std::FILE* partial_ = nullptr;
  ResultFile file_;
};

}  // namespace flabench
