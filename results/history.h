// Nightly history: one folder of result files per GPU, each case's median over the runs, and the step changes
// in it.
//
// Store layout: <store>/<gpu-slug>/<started UTC, YYYYMMDDTHHMMSSZ>-<git sha, 12>.json, e.g.
// history/nvidia-h100-80gb-hbm3/20261122T020000Z-469ec8e26adc.json; `fla-bench history STORE --add RESULT`
// files a run there. Runs are ordered by their start time.
//
// Step detection, per case, run by run: the baseline is the median of the last `lookback` medians of the
// current regime (at least `min_points`); a run is a candidate when it is both `min_z` robust deviations
// (1.4826 x MAD, at least 0.5% of the baseline) and `threshold` away from it. The next run decides: still
// beyond the threshold in the same direction, the candidate is a step and starts a new regime; back within
// it, the candidate was a spike and is left out of later baselines. At the newest run nothing can confirm
// yet: the flag is unconfirmed, and that is what a nightly job gates on.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/compare.h"

namespace flabench {

struct HistorySettings {
  int lookback = 7;
  int min_points = 3;
  double threshold = 0.05;  // fraction
  double min_z = 4;
};

enum class FlagKind { step, spike, unconfirmed };
std::string_view flag_kind_name(FlagKind kind);

struct HistoryFlag {
  std::size_t run = 0;
  bool slower = false;
  double change_pct = 0;  // against the baseline
  double z = 0;
  FlagKind kind = FlagKind::unconfirmed;
};

struct CaseHistory {
  std::string name;
  std::vector<std::optional<double>> medians_ms;  // one per run; empty where the case was not timed
  std::vector<HistoryFlag> flags;
};

struct RunInfo {
  std::string file, started_utc, git_sha, gpu;
};

struct History {
  HistorySettings settings;
  std::vector<RunInfo> runs;  // oldest first
  std::vector<CaseHistory> cases;

  // A case's newest run flagged slower: what a nightly job fails on.
  std::vector<const CaseHistory*> regressed_at_newest() const;
};

// Flags for one series of medians (exposed for tests).
std::vector<HistoryFlag> detect_steps(const std::vector<std::optional<double>>& medians_ms,
                                      const HistorySettings& settings);

// The runs of one GPU's folder (every *.json in it, ordered by start time), the last `last` of them (0: all).
// Throws ResultFileError when the folder mixes GPUs or holds no runs.
History analyse_history(const std::filesystem::path& folder, const HistorySettings& settings,
                        std::size_t last, const CaseSelector& selected = {});

// The analysis as JSON: {"schema": "fla-bench-history", "schema_version", "settings", "runs", "cases"}.
nlohmann::json history_json(const History& history);

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
std::string device_slug(const std::string& device_name);

// Copies `result` into <store>/<gpu-slug>/<start>-<sha>.json and returns that path. Throws ResultFileError
// for an unreadable or incomplete result, or when a different file already has that name.
std::filesystem::path add_to_history(const std::filesystem::path& store, const std::filesystem::path& result);

}  // namespace flabench
