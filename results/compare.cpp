#include "results/compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "kernels/common/format.h"
#include "results/statistics.h"

namespace flabench {
namespace {

bool timed(const CaseRecord& r) {
  return r.status == CaseStatus::ok && r.timing && r.timing->samples > 0;
}

// The smallest two-sided p-value the rank test can give with these sample counts (no ties): 2 / C(a + b, a).
double smallest_p(std::size_t a, std::size_t b) {
  double arrangements = 1;
  for (std::size_t i = 1; i <= std::min(a, b); ++i)
    arrangements = arrangements * static_cast<double>(a + b - i + 1) / i;
  return std::min(1.0, 2 / arrangements);
}

CaseComparison compare_case(const std::string& name, const CaseEntry* base, const CaseEntry* next,
                            const CompareSettings& settings) {
  CaseComparison c{name};
  if (!base || !next) {
    c.verdict = base ? Verdict::only_base : Verdict::only_new;
    return c;
  }
  const CaseRecord& b = *base->record;
  const CaseRecord& n = *next->record;
  if (timed(b)) c.base_ms = b.timing->median_ms;
  if (timed(n)) c.new_ms = n.timing->median_ms;
  const auto bytes = [](const MemoryRecord& m) { return m.tensor_bytes + m.workspace_bytes; };
  if (b.memory) c.base_bytes = bytes(*b.memory);
  if (n.memory) c.new_bytes = bytes(*n.memory);
  if (b.status == CaseStatus::ok && n.status == CaseStatus::failed) {
    c.verdict = Verdict::broken;
    c.note = "failed in new: " + n.reason;
    return c;
  }
  if (!c.base_ms || !c.new_ms) {
    c.verdict = Verdict::untested;
    const CaseRecord& untimed = c.base_ms ? n : b;
    c.note =
        std::string(c.base_ms ? "new" : "base") + ": " +
        (untimed.status == CaseStatus::ok ? "not timed"
                                          : std::string(status_name(untimed.status)) + ", " + untimed.reason);
    return c;
  }
  c.ratio = *c.new_ms / *c.base_ms;
  const std::vector<double>& a = b.timing->samples_ms;
  const std::vector<double>& z = n.timing->samples_ms;
  if (smallest_p(a.size(), z.size()) >= settings.alpha) {
    c.verdict = Verdict::untested;
    c.note = format("%zu and %zu samples cannot reach p < %g", a.size(), z.size(), settings.alpha);
    return c;
  }
  c.p_value = mann_whitney(a, z).p_value;
  const bool significant = *c.p_value < settings.alpha;
  const bool large = std::abs(std::log(c.ratio)) >= std::log1p(settings.threshold);
  c.verdict = significant && large ? (c.ratio > 1 ? Verdict::slower : Verdict::faster) : Verdict::same;
  return c;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::same:
      return "same";
    case Verdict::broken:
      return "broken";
    case Verdict::untested:
      return "untested";
    case Verdict::only_base:
      return "only in base";
    case Verdict::only_new:
      return "only in new";
  }
  return "?";
}

int Comparison::count(Verdict verdict) const {
  return int(std::count_if(cases.begin(), cases.end(), [&](const auto& c) { return c.verdict == verdict; }));
}

Comparison compare_runs(const std::vector<LoadedResult>& base, const std::vector<LoadedResult>& next,
                        const CompareSettings& settings, const CaseSelector& selected) {
  const std::map<std::string, CaseEntry> base_cases = cases_by_name(base), next_cases = cases_by_name(next);
  std::map<std::string, std::pair<const CaseEntry*, const CaseEntry*>> pairs;
  for (const auto& [name, entry] : base_cases) pairs[name].first = &entry;
  for (const auto& [name, entry] : next_cases) pairs[name].second = &entry;

  Comparison comparison;
  double log_sum = 0;
  for (const auto& [name, pair] : pairs) {
    if (selected && !selected(name)) continue;
    comparison.cases.push_back(compare_case(name, pair.first, pair.second, settings));
    if (comparison.cases.back().ratio > 0) {
      log_sum += std::log(comparison.cases.back().ratio);
      ++comparison.timed_pairs;
    }
  }
  if (comparison.timed_pairs > 0) comparison.geomean_ratio = std::exp(log_sum / comparison.timed_pairs);
  return comparison;
}

int RoundsComparison::count(Verdict verdict) const {
  return int(
      std::count_if(cases.begin(), cases.end(), [&](const auto& row) { return row.verdict == verdict; }));
}

int RoundsComparison::disagreements() const {
  return int(std::count_if(cases.begin(), cases.end(), [](const auto& row) { return !row.agreed; }));
}

RoundsComparison compare_rounds(const std::vector<RunPair>& rounds, const CompareSettings& settings,
                                const CaseSelector& selected) {
  RoundsComparison result;
  std::map<std::string, RoundsRow> rows;
  const auto missing = [](const std::string& name) {
    CaseComparison c{name, Verdict::untested};
    c.note = "not in this round's runs";
    return c;
  };
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    result.rounds.push_back(compare_runs(rounds[r].first, rounds[r].second, settings, selected));
    for (const CaseComparison& c : result.rounds.back().cases) {
      RoundsRow& row = rows[c.name];
      row.name = c.name;
      while (row.rounds.size() < r) row.rounds.push_back(missing(c.name));
      row.rounds.push_back(c);
    }
  }
  for (auto& [name, row] : rows) {
    while (row.rounds.size() < rounds.size()) row.rounds.push_back(missing(name));
    const auto any = [&](Verdict v) {
      return std::any_of(row.rounds.begin(), row.rounds.end(),
                         [&](const CaseComparison& c) { return c.verdict == v; });
    };
    const auto timed = [](const CaseComparison& c) {
      return c.verdict == Verdict::faster || c.verdict == Verdict::slower || c.verdict == Verdict::same;
    };
    const Verdict first = row.rounds.front().verdict;
    row.agreed = std::all_of(row.rounds.begin(), row.rounds.end(),
                             [&](const CaseComparison& c) { return c.verdict == first; });
    if (any(Verdict::broken))
      row.verdict = Verdict::broken;
    else if (row.agreed)
      row.verdict = first;
    else if (std::all_of(row.rounds.begin(), row.rounds.end(), timed))
      row.verdict = Verdict::same;
    else
      row.verdict = Verdict::untested;
    result.cases.push_back(std::move(row));
  }
  return result;
}

}  // namespace flabench
