#include "results/result_set.h"

#include <algorithm>

namespace flabench {

std::vector<LoadedResult> load_results(const std::filesystem::path& file_or_folder) {
  std::error_code error;
  if (!std::filesystem::exists(file_or_folder, error))
    throw ResultFileError(file_or_folder.string() + ": no such file or folder");
  std::vector<std::filesystem::path> paths;
  if (std::filesystem::is_directory(file_or_folder)) {
    for (const auto& entry : std::filesystem::directory_iterator(file_or_folder)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.xz")))
        paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    if (paths.empty())
      throw ResultFileError(file_or_folder.string() + ": a folder without result files (*.json, *.json.xz)");
  } else {
    paths.push_back(file_or_folder);
  }
  std::vector<LoadedResult> results;
  for (const auto& path : paths) results.push_back({path, read_result_file(path)});
  return results;
}

std::map<std::string, CaseEntry> cases_by_name(const std::vector<LoadedResult>& results) {
  std::map<std::string, CaseEntry> cases;
  for (const LoadedResult& result : results) {
    for (const CaseRecord& record : result.file.cases) {
      const auto [found, added] = cases.emplace(record.name, CaseEntry{&record, &result});
      if (!added && found->second.source != &result)
        throw ResultFileError("case " + record.name + " is in both " + found->second.source->path.string() +
                              " and " + result.path.string() + "; pass only the one to compare");
      if (!added) found->second.record = &record;  // a case run twice in one file: the later record
    }
  }
  return cases;
}

std::string device_label(const DeviceRecord& device) {
  return device.backend == "cpu" ? "cpu (" + device.name + ")" : device.name;
}

std::string environment_text(const std::map<std::string, std::string>& environment) {
  std::string text;
  for (const auto& [name, value] : environment) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text.empty() ? "none" : text;
}

std::map<std::string, std::string> fla_switches(const std::map<std::string, std::string>& environment) {
  std::map<std::string, std::string> switches;
  for (const auto& [name, value] : environment)
    if (name.starts_with("FLA_")) switches.emplace(name, value);
  return switches;
}

void require_one_device(const std::vector<LoadedResult>& results, const std::string& what) {
  for (const LoadedResult& result : results) {
    const std::string first = device_label(results.front().file.context.device);
    const std::string other = device_label(result.file.context.device);
    if (other != first)
      throw ResultFileError(what + " mixes devices: " + results.front().path.string() + " ran on " + first +
                            ", " + result.path.string() + " on " + other);
  }
}

}  // namespace flabench
