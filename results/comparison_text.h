// The console forms of compare, compare --across-gpus and history, and their JSON forms for --out.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/across_gpus.h"
#include "results/history.h"

namespace flabench {

// One line per input: source, device, fla-bench version and commit, start time.
std::string describe_results(const std::string& source, const std::vector<LoadedResult>& results);

void print_comparison(std::ostream& out, const Comparison& comparison, const CompareSettings& settings);
nlohmann::json comparison_json(const Comparison& comparison, const CompareSettings& settings);

void print_rounds(std::ostream& out, const RoundsComparison& rounds, const CompareSettings& settings);
nlohmann::json rounds_json(const RoundsComparison& rounds, const CompareSettings& settings);

void print_across_gpus(std::ostream& out, const AcrossGpus& table);
nlohmann::json across_gpus_json(const AcrossGpus& table);

void print_history(std::ostream& out, const History& history);

}  // namespace flabench
