#include "results/result_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "results/json_format.h"
#include "results/xz_text.h"

namespace flabench {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw ResultFileError(path.string() + ": " + what);
}

void check_schema(const std::filesystem::path& path, const json& header) {
  const std::string schema = header.value("schema", "");
  if (schema != kResultSchemaName) fail(path, "not an fla-bench result file (schema '" + schema + "')");
  const std::string version = header.value("schema_version", "");
  const std::string ours = kResultSchemaVersion;
  if (version.substr(0, version.find('.')) != ours.substr(0, ours.find('.')))
    fail(path, "schema version " + version + " cannot be read by this fla-bench (it reads " +
                   ours.substr(0, ours.find('.')) + ".x)");
}

void write_all(const std::filesystem::path& path, const std::string& text) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) fail(path, std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size() &&
                       std::fflush(out) == 0 && ::fsync(fileno(out)) == 0;
  const int error = errno;
  std::fclose(out);
  if (!written) fail(path, std::strerror(error));
}

ResultFile read_partial(const std::filesystem::path& path, std::istream& in) {
  ResultFile file;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      // A line cut short by a crash ends the readable part; everything before it stands.
      break;
    }
    try {
      if (line_number == 1) {
        check_schema(path, j);
        j.at("context").get_to(file.context);
      } else {
        file.cases.push_back(j.at("case").get<CaseRecord>());
      }
    } catch (const json::exception& e) {
      fail(path, "line " + std::to_string(line_number) + ": " + e.what());
    }
  }
  if (line_number == 0) fail(path, "empty file");
  file.complete = false;
  return file;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary(path.string() + ".tmp");
  write_all(temporary, text);
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) fail(path, "cannot rename " + temporary.string() + " into place: " + error.message());
}

std::filesystem::path partial_path(const std::filesystem::path& path) {
  return std::filesystem::path(path.string() + ".partial");
}

ResultFile read_result_file(const std::filesystem::path& path) {
  if (path.extension() == ".partial") {
    std::ifstream in(path);
    if (!in) fail(path, "cannot open: " + std::string(std::strerror(errno)));
    return read_partial(path, in);
  }
  std::string text;
  try {
    text = read_text(path);
  } catch (const TextReadError& e) {
    fail(path, e.what());
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    fail(path, std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object()) fail(path, "not an fla-bench result file (no top-level object)");
  check_schema(path, j);
  ResultFile file;
  try {
    j.at("context").get_to(file.context);
    j.at("cases").get_to(file.cases);
    file.complete = j.at("complete").get<bool>();
    if (j.contains("summary")) file.summary = j.at("summary").get<RunSummary>();
  } catch (const json::exception& e) {
    fail(path, e.what());
  }
  return file;
}

JsonFileReporter::JsonFileReporter(std::filesystem::path path) : path_(std::move(path)) {
  partial_ = std::fopen(partial_path(path_).c_str(), "w");
  if (!partial_) fail(path_, "cannot write: " + std::string(std::strerror(errno)));
}

JsonFileReporter::~JsonFileReporter() {
  if (partial_) std::fclose(partial_);
}

void JsonFileReporter::append_line(const std::string& line) {
  if (std::fputs((line + "\n").c_str(), partial_) < 0 || std::fflush(partial_) != 0 ||
      ::fsync(fileno(partial_)) != 0)
    fail(partial_path(path_), std::strerror(errno));
}

void JsonFileReporter::begin(const RunContext& context) {
  file_.context = context;
  append_line(
      json{{"schema", context.schema}, {"schema_version", context.schema_version}, {"context", context}}
          .dump());
}

void JsonFileReporter::record(const CaseRecord& record) {
  file_.cases.push_back(record);
  append_line(json{{"case", record}}.dump());
}

void JsonFileReporter::end(const RunSummary& summary) {
  file_.summary = summary;
  file_.complete = true;
  write_file_atomically(path_, result_file_json(file_).dump(1) + "\n");
  std::fclose(partial_);
  partial_ = nullptr;
  std::error_code error;
  std::filesystem::remove(partial_path(path_), error);
}

}  // namespace flabench
