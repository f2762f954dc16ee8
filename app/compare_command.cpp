#include <iostream>

#include "app/commands.h"
#include "kernels/common/format.h"
#include "results/comparison_text.h"
#include "results/json_format.h"
#include "results/merge.h"
#include "suites/cases.h"
#include "suites/usage_error.h"

namespace flabench {
namespace {

std::vector<LoadedResult> load_or_usage_error(const std::string& input) {
  try {
    return load_results(input);
  } catch (const ResultFileError& e) {
    throw UsageError(e.what());
  }
}

int compare_across_gpus(const CommandLine& line, const CaseSelector& selected) {
  std::vector<std::pair<std::string, std::vector<LoadedResult>>> sides;
  for (const std::string& input : line.inputs) sides.emplace_back(input, load_or_usage_error(input));
  AcrossGpus table;
  try {
    table = across_gpus(sides, selected);
  } catch (const ResultFileError& e) {
    throw UsageError(std::string(e.what()) + " (--across-gpus takes one GPU per file or folder)");
  }
  if (table.rows.empty()) throw UsageError("no case is timed on two of the GPUs (after --filter)");
  print_across_gpus(std::cout, table);
  write_json_out(line, across_gpus_json(table));
  return 0;
}

// BASE's and NEW's sources, and a note where they ran on different GPUs (the verdicts then mix the GPUs with
// the change).
void print_sources(const std::string& base_name, const std::vector<LoadedResult>& base,
                   const std::string& new_name, const std::vector<LoadedResult>& next,
                   const std::string& indent) {
  std::cout << indent << "base: " << describe_results(base_name, base) << "\n"
            << indent << "new:  " << describe_results(new_name, next) << "\n";
  const std::string base_device = device_label(base.front().file.context.device);
  const std::string new_device = device_label(next.front().file.context.device);
  if (base_device != new_device)
    std::cout << indent << "note: base ran on " << base_device << " and new on " << new_device
              << "; --across-gpus sets GPUs side by side against their own floors\n";
}

int compare_rounds_command(const CommandLine& line, const CaseSelector& selected) {
  if (line.inputs.size() % 2 != 0)
    throw UsageError("compare --rounds takes BASE NEW pairs, one per round; " +
                     std::to_string(line.inputs.size()) + " results given");
  std::vector<RunPair> rounds;
  for (std::size_t i = 0; i < line.inputs.size(); i += 2)
    rounds.emplace_back(load_or_usage_error(line.inputs[i]), load_or_usage_error(line.inputs[i + 1]));
  const CompareSettings settings{line.threshold, line.alpha};
  RoundsComparison comparison;
  try {
    comparison = compare_rounds(rounds, settings, selected);
  } catch (const ResultFileError& e) {
    throw UsageError(e.what());
  }
  if (comparison.cases.empty())
    throw UsageError("no case matches --filter '" + line.filter + "' in any round");
  for (std::size_t i = 0; i < line.inputs.size(); i += 2) {
    std::cout << "round " << i / 2 + 1 << "\n";
    print_sources(line.inputs[i], rounds[i / 2].first, line.inputs[i + 1], rounds[i / 2].second, "  ");
  }
  std::cout << "\n";
  print_rounds(std::cout, comparison, settings);
  write_json_out(line, rounds_json(comparison, settings));
  return line.fail_on_regression && comparison.regressed() ? 1 : 0;
}

}  // namespace

int merge_command(const CommandLine& line) {
  std::vector<LoadedResult> shards;
  for (std::size_t i = 1; i < line.inputs.size(); ++i) {
    std::vector<LoadedResult> loaded = load_or_usage_error(line.inputs[i]);
    shards.insert(shards.end(), std::make_move_iterator(loaded.begin()),
                  std::make_move_iterator(loaded.end()));
  }
  try {
    const ResultFile merged = merge_shards(shards, line.argv);
    write_file_atomically(line.inputs[0], result_file_json(merged).dump(1) + "\n");
    std::cout << format("merged %zu shards, %zu cases (%d ok, %d failed, %d skipped) into %s\n",
                        shards.size(), merged.cases.size(), merged.summary->ok, merged.summary->failed,
                        merged.summary->skipped, line.inputs[0].c_str());
  } catch (const ResultFileError& e) {
    throw UsageError(e.what());
  }
  return 0;
}

int compare_command(const CommandLine& line) {
  const CaseSelector selected = case_selector(line.filter);
  if (line.across_gpus && line.rounds) throw UsageError("compare takes --across-gpus or --rounds, not both");
  if (line.across_gpus) return compare_across_gpus(line, selected);
  if (line.rounds) return compare_rounds_command(line, selected);
  if (line.inputs.size() != 2)
    throw UsageError("compare takes BASE and NEW, " + std::to_string(line.inputs.size()) +
                     " given (several GPUs side by side: --across-gpus; rounds of an A/B test: --rounds)");
  const std::vector<LoadedResult> base = load_or_usage_error(line.inputs[0]);
  const std::vector<LoadedResult> next = load_or_usage_error(line.inputs[1]);
  const CompareSettings settings{line.threshold, line.alpha};
  Comparison comparison;
  try {
    comparison = compare_runs(base, next, settings, selected);
  } catch (const ResultFileError& e) {
    throw UsageError(e.what());
  }
  if (comparison.cases.empty())
    throw UsageError("no case matches --filter '" + line.filter + "' in either run");
  print_sources(line.inputs[0], base, line.inputs[1], next, "");
  std::cout << "\n";
  print_comparison(std::cout, comparison, settings);
  write_json_out(line, comparison_json(comparison, settings));
  return line.fail_on_regression && comparison.regressed() ? 1 : 0;
}

}  // namespace flabench
