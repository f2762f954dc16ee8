// Result files gathered for comparison: a file, or a folder of them, with their cases indexed by name.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "results/result_file.h"

namespace flabench {

struct LoadedResult {
  std::filesystem::path path;
  ResultFile file;
};

// A result file (final or .partial), or every *.json file in a folder, by name. Throws ResultFileError for a
// missing path, an empty folder or a file that cannot be read.
std::vector<LoadedResult> load_results(const std::filesystem::path& file_or_folder);

struct CaseEntry {
  const CaseRecord* record = nullptr;
  const LoadedResult* source = nullptr;
};

// Every case of `results` by name. Throws ResultFileError when two files hold the same case name, naming
// both: which one to trust is the user's call.
std::map<std::string, CaseEntry> cases_by_name(const std::vector<LoadedResult>& results);

// The GPU a file ran on ("NVIDIA H100 80GB HBM3", or "cpu (<host cpu>)" for the cpu backend).
std::string device_label(const DeviceRecord& device);

// A run's recorded environment as "NAME=value NAME=value" (by name; "none" when empty).
std::string environment_text(const std::map<std::string, std::string>& environment);
// Its FLA_* variables: fla-bench's own switches, which choose the code a run times. (Its CUDA_* ones are
// provenance: a cluster's tasks differ in CUDA_VISIBLE_DEVICES, and hosts in CUDA_HOME, for one run.)
std::map<std::string, std::string> fla_switches(const std::map<std::string, std::string>& environment);

// Throws ResultFileError unless every file in `results` ran on one device model (by name).
void require_one_device(const std::vector<LoadedResult>& results, const std::string& what);

}  // namespace flabench
