#include "results/comparison_text.h"

#include <algorithm>

#include "kernels/common/format.h"

namespace flabench {
namespace {

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

template <class Rows>
std::size_t name_width(const Rows& rows) {
  std::size_t width = 4;
  for (const auto& row : rows) width = std::max(width, row.name.size());
  return width;
}

std::string optional_ms(const std::optional<double>& ms) {
  return ms ? format("%10.4f", *ms) : format("%10s", "-");
}

// Eight levels of a bar, for a trend in one line of text.
std::string sparkline(const std::vector<std::optional<double>>& values) {
  static const char* const kBars[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                      "\u2585", "\u2586", "\u2587", "\u2588"};
  double low = 0, high = 0;
  bool any = false;
  for (const auto& v : values) {
    if (!v) continue;
    low = any ? std::min(low, *v) : *v;
    high = any ? std::max(high, *v) : *v;
    any = true;
  }
  std::string line;
  for (const auto& v : values) {
    if (!v) {
      line += " ";
      continue;
    }
    const int level = high > low ? static_cast<int>(std::lround(7 * (*v - low) / (high - low))) : 0;
    line += kBars[level];
  }
  return line;
}

}  // namespace

std::string describe_results(const std::string& source, const std::vector<LoadedResult>& results) {
  const RunContext& c = results.front().file.context;
  std::string text = format("%s: %s, fla-bench %s %.12s%s, started %s", source.c_str(),
                            device_label(c.device).c_str(), c.fla_bench_version.c_str(), c.git_sha.c_str(),
                            c.git_dirty ? " (dirty)" : "", c.started_utc.c_str());
  // (one binary timed against itself under two switches differs only here)
  if (!c.environment.empty()) text += ", with " + environment_text(c.environment);
  if (results.size() > 1) text += format(" (%zu files)", results.size());
  return text;
}

void print_comparison(std::ostream& out, const Comparison& comparison, const CompareSettings& settings) {
  const std::size_t width = name_width(comparison.cases);
  out << pad("case", width) << "     base ms      new ms  new/base   p-value  verdict\n";
  for (const CaseComparison& c : comparison.cases) {
    out << pad(c.name, width) << "  " << optional_ms(c.base_ms) << "  " << optional_ms(c.new_ms);
    out << (c.ratio > 0 ? format("  %8.3f", c.ratio) : format("  %8s", "-"));
    out << (c.p_value ? format("  %8.1e", *c.p_value) : format("  %8s", "-"));
    out << "  " << verdict_name(c.verdict);
    if (!c.note.empty()) out << " (" << c.note << ")";
    out << "\n";
  }
  out << format(
      "\n%zu cases: %d slower, %d faster, %d same, %d broken, %d untested, %d only in base, %d only in new\n",
      comparison.cases.size(), comparison.count(Verdict::slower), comparison.count(Verdict::faster),
      comparison.count(Verdict::same), comparison.count(Verdict::broken), comparison.count(Verdict::untested),
      comparison.count(Verdict::only_base), comparison.count(Verdict::only_new));
  if (comparison.timed_pairs > 0)
    out << format(
        "geomean new/base %.4f over %d cases timed in both (verdicts: p < %g and a change of %g%% or more)\n",
        comparison.geomean_ratio, comparison.timed_pairs, settings.alpha, 100 * settings.threshold);
  for (const CaseComparison& c : comparison.cases)
    if (c.verdict == Verdict::slower || c.verdict == Verdict::broken)
      out << "regression: " << c.name << " "
          << (c.verdict == Verdict::slower ? format("%+.1f%%", 100 * (c.ratio - 1)) : c.note) << "\n";
  // memory is reported, not judged: a variant may trade it for time
  constexpr double kMiB = 1024.0 * 1024.0;
  for (const CaseComparison& c : comparison.cases)
    if (c.memory_changed())
      out << format("memory: %s %.1f -> %.1f MiB (%+.1f%%)\n", c.name.c_str(), *c.base_bytes / kMiB,
                    *c.new_bytes / kMiB, 100.0 * (double(*c.new_bytes) / double(*c.base_bytes) - 1));
}

nlohmann::json comparison_json(const Comparison& comparison, const CompareSettings& settings) {
  using nlohmann::json;
  json cases = json::array();
  for (const CaseComparison& c : comparison.cases) {
    json row{{"name", c.name}, {"verdict", verdict_name(c.verdict)}, {"note", c.note}};
    if (c.base_ms) row["base_ms"] = *c.base_ms;
    if (c.new_ms) row["new_ms"] = *c.new_ms;
    if (c.ratio > 0) row["ratio"] = c.ratio;
    if (c.p_value) row["p_value"] = *c.p_value;
    if (c.base_bytes) row["base_bytes"] = *c.base_bytes;
    if (c.new_bytes) row["new_bytes"] = *c.new_bytes;
    cases.push_back(row);
  }
  return {{"schema", "fla-bench-compare"},
          {"schema_version", "1.0.0"},
          {"settings", {{"threshold_pct", 100 * settings.threshold}, {"alpha", settings.alpha}}},
          {"geomean_ratio", comparison.geomean_ratio},
          {"timed_pairs", comparison.timed_pairs},
          {"regressed", comparison.regressed()},
          {"cases", cases}};
}

void print_rounds(std::ostream& out, const RoundsComparison& rounds, const CompareSettings& settings) {
  const std::size_t width = name_width(rounds.cases);
  out << pad("case", width);
  for (std::size_t r = 0; r < rounds.rounds.size(); ++r) out << format("  r%-2zu new/base", r + 1);
  out << "  verdict\n";
  for (const RoundsRow& row : rounds.cases) {
    out << pad(row.name, width);
    for (const CaseComparison& c : row.rounds)
      out << (c.ratio > 0 ? format("  %12.3f", c.ratio) : format("  %12s", "-"));
    out << "  " << verdict_name(row.verdict);
    if (!row.agreed) {
      std::string each;
      for (const CaseComparison& c : row.rounds)
        each += (each.empty() ? "" : ", ") + std::string(verdict_name(c.verdict));
      out << " (rounds: " << each << ")";
    }
    out << "\n";
  }
  out << format(
      "\n%zu cases over %zu rounds: %d slower, %d faster, %d same (%d of them where rounds disagree), "
      "%d broken, %d untested\n",
      rounds.cases.size(), rounds.rounds.size(), rounds.count(Verdict::slower), rounds.count(Verdict::faster),
      rounds.count(Verdict::same), rounds.disagreements(), rounds.count(Verdict::broken),
      rounds.count(Verdict::untested));
  for (std::size_t r = 0; r < rounds.rounds.size(); ++r)
    if (rounds.rounds[r].timed_pairs > 0)
      out << format("round %zu: geomean new/base %.4f over %d cases timed in both\n", r + 1,
                    rounds.rounds[r].geomean_ratio, rounds.rounds[r].timed_pairs);
  out << format("(a verdict in every round: p < %g and a change of %g%% or more)\n", settings.alpha,
                100 * settings.threshold);
  for (const RoundsRow& row : rounds.cases)
    if (row.verdict == Verdict::slower || row.verdict == Verdict::broken)
      out << "regression: " << row.name << " (" << verdict_name(row.verdict) << ")\n";
}

nlohmann::json rounds_json(const RoundsComparison& rounds, const CompareSettings& settings) {
  using nlohmann::json;
  json per_round = json::array();
  for (const Comparison& c : rounds.rounds)
    per_round.push_back({{"geomean_ratio", c.geomean_ratio}, {"timed_pairs", c.timed_pairs}});
  json cases = json::array();
  for (const RoundsRow& row : rounds.cases) {
    json ratios = json::array(), verdicts = json::array();
    for (const CaseComparison& c : row.rounds) {
      ratios.push_back(c.ratio > 0 ? json(c.ratio) : json(nullptr));
      verdicts.push_back(verdict_name(c.verdict));
    }
    cases.push_back({{"name", row.name},
                     {"verdict", verdict_name(row.verdict)},
                     {"agreed", row.agreed},
                     {"ratios", ratios},
                     {"verdicts", verdicts}});
  }
  return {{"schema", "fla-bench-compare-rounds"},
          {"schema_version", "1.0.0"},
          {"settings", {{"threshold_pct", 100 * settings.threshold}, {"alpha", settings.alpha}}},
          {"rounds", per_round},
          {"regressed", rounds.regressed()},
          {"cases", cases}};
}

void print_across_gpus(std::ostream& out, const AcrossGpus& table) {
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    const GpuColumn& gpu = table.gpus[g];
    out << format("GPU%zu: %s (%s): byte floor at %.0f GB/s, fp32 peak %.1f TFLOP/s\n", g + 1,
                  gpu.label.c_str(), gpu.source.c_str(), gpu.bandwidth_gbs, gpu.fp32_peak_tflops);
  }
  const std::size_t width = name_width(table.rows);
  out << "\n" << pad("case", width);
  for (std::size_t g = 0; g < table.gpus.size(); ++g)
    out << format("  | GPU%zu ms   %%floor  %%fp32  regime ", g + 1);
  out << "\n";
  for (const AcrossRow& row : table.rows) {
    out << pad(row.name, width);
    for (const auto& cell : row.cells) {
      if (!cell) {
        out << format("  | %9s %7s %6s  %-7s ", "-", "", "", "");
        continue;
      }
      out << format("  | %9.4f %6.1f%% %5.1f%%  %-7s ", cell->median_ms, cell->floor_pct, cell->peak_pct,
                    cell->regime.c_str());
    }
    out << "\n";
  }
  out << format(
      "\n%zu cases timed on at least two GPUs. regime: the roof (memory or fp32 compute) that the case's "
      "FLOPs per floor byte put it under; latency below 25%% of that roof\n",
      table.rows.size());
}

nlohmann::json across_gpus_json(const AcrossGpus& table) {
  using nlohmann::json;
  json gpus = json::array(), rows = json::array();
  for (const GpuColumn& gpu : table.gpus)
    gpus.push_back({{"label", gpu.label},
                    {"source", gpu.source},
                    {"bandwidth_gbs", gpu.bandwidth_gbs},
                    {"fp32_peak_tflops", gpu.fp32_peak_tflops}});
  for (const AcrossRow& row : table.rows) {
    json cells = json::array();
    for (const auto& cell : row.cells) {
      if (!cell) {
        cells.push_back(nullptr);
        continue;
      }
      cells.push_back({{"median_ms", cell->median_ms},
                       {"floor_pct", cell->floor_pct},
                       {"peak_pct", cell->peak_pct},
                       {"regime", cell->regime},
                       {"roof_pct", cell->roof_pct}});
    }
    rows.push_back({{"name", row.name}, {"cells", cells}});
  }
  return {{"schema", "fla-bench-across-gpus"}, {"schema_version", "1.0.0"}, {"gpus", gpus}, {"cases", rows}};
}

void print_history(std::ostream& out, const History& history) {
  out << format("%zu runs of %s, %s to %s\n", history.runs.size(), history.runs.front().gpu.c_str(),
                history.runs.front().started_utc.c_str(), history.runs.back().started_utc.c_str());
  const std::size_t width = name_width(history.cases);
  out << "\n" << pad("case", width) << "   newest ms  vs previous  trend  flags\n";
  for (const CaseHistory& c : history.cases) {
    std::vector<double> present;
    for (const auto& m : c.medians_ms)
      if (m) present.push_back(*m);
    out << pad(c.name, width);
    out << (c.medians_ms.back() ? format("  %10.4f", *c.medians_ms.back()) : format("  %10s", "-"));
    out << (c.medians_ms.back() && present.size() >= 2
                ? format("  %+10.1f%%", 100 * (present.back() / present[present.size() - 2] - 1))
                : format("  %11s", "-"));
    out << "  " << sparkline(c.medians_ms);
    for (const HistoryFlag& f : c.flags)
      out << format("  [%s %s %+.1f%%, z %.0f, %s]", history.runs[f.run].started_utc.substr(0, 10).c_str(),
                    f.slower ? "slower" : "faster", f.change_pct, f.z,
                    std::string(flag_kind_name(f.kind)).c_str());
    out << "\n";
  }
  const auto regressed = history.regressed_at_newest();
  out << format("\n%zu cases; %zu slower at the newest run (%s)\n", history.cases.size(), regressed.size(),
                history.runs.back().file.c_str());
  for (const CaseHistory* c : regressed)
    out << format("regression: %s %+.1f%%\n", c->name.c_str(), c->flags.back().change_pct);
}

}  // namespace flabench
