// Run-against-run verdicts: the cases of a base and a new run paired by name, each judged from its stored
// samples. A case is slower or faster only when both hold:
//   - significance: the Mann-Whitney U test of the two sample sets gives p < alpha (default 0.01), and
//   - effect size: the median moved by at least the threshold (default 5%) in log terms, new/base >= 1 + t
//     or <= 1 / (1 + t),
// so noise alone (many samples, tiny shift) and a lucky few samples (big shift, no evidence) are both "same".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/result_set.h"

namespace flabench {

enum class Verdict {
  faster,
  slower,
  same,
  broken,    // ok in base, failed in new (a regression too)
  untested,  // not timed on a side (skipped, failed, check-only), or too few samples for a test at alpha
  only_base,
  only_new,
};
std::string_view verdict_name(Verdict verdict);

struct CompareSettings {
  double threshold = 0.05;  // the smallest change of the median that counts, as a fraction
  double alpha = 0.01;      // significance level of the rank test
};

struct CaseComparison {
  std::string name;
  Verdict verdict = Verdict::same;
  std::optional<double> base_ms{}, new_ms{};  // medians
  double ratio = 0;                           // new / base median, when both are timed
  std::optional<double> p_value{};
  std::string note{};  // why untested or broken
  // the device memory the case held (tensors and workspace; schema 1.6), on each side that recorded it
  std::optional<std::uint64_t> base_bytes{}, new_bytes{};
  bool memory_changed() const { return base_bytes && new_bytes && *base_bytes != *new_bytes; }
};

struct Comparison {
  std::vector<CaseComparison> cases;  // by name
  double geomean_ratio = 0;           // over the cases timed on both sides (0 for none)
  int timed_pairs = 0;
  int count(Verdict verdict) const;
  bool regressed() const { return count(Verdict::slower) + count(Verdict::broken) > 0; }
};

// Selects cases by name (the --filter regex); empty selects all.
using CaseSelector = std::function<bool(const std::string& name)>;

// Pairs the cases of `base` and `next` by name. Throws ResultFileError for duplicate names within a side
// (cases_by_name).
Comparison compare_runs(const std::vector<LoadedResult>& base, const std::vector<LoadedResult>& next,
                        const CompareSettings& settings, const CaseSelector& selected = {});

// Rounds of one A/B test: the two builds timed alternately on one GPU (base, new, base, new, ...), each
// round compared on its own. Clocks and neighbours drift between rounds, so a case is faster or slower only
// when every round says so, and broken when any round has it broken; rounds that disagree leave it "same"
// (agreed false), and a case not compared in every round is untested.
struct RoundsRow {
  std::string name;
  std::vector<CaseComparison> rounds;  // one per round, in order (only_base / only_new where it is missing)
  Verdict verdict = Verdict::same;
  bool agreed = true;
};

struct RoundsComparison {
  std::vector<Comparison> rounds;
  std::vector<RoundsRow> cases;  // by name
  int count(Verdict verdict) const;
  int disagreements() const;
  bool regressed() const { return count(Verdict::slower) + count(Verdict::broken) > 0; }
};

using RunPair = std::pair<std::vector<LoadedResult>, std::vector<LoadedResult>>;  // base, new
RoundsComparison compare_rounds(const std::vector<RunPair>& rounds, const CompareSettings& settings,
                                const CaseSelector& selected = {});

}  // namespace flabench
