#include "results/history.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "results/result_file.h"
#include "results/statistics.h"
#include "results/xz_text.h"

namespace flabench {
namespace {

// A relative noise floor for the robust spread: medians of thousands of samples can repeat to the last digit,
// and a zero MAD must not make every small change infinitely significant.
constexpr double kMinRelativeSpread = 0.005;

std::optional<std::size_t> next_present(const std::vector<std::optional<double>>& values, std::size_t after) {
  for (std::size_t k = after + 1; k < values.size(); ++k)
    if (values[k]) return k;
  return std::nullopt;
}

}  // namespace

std::string_view flag_kind_name(FlagKind kind) {
  switch (kind) {
    case FlagKind::step:
      return "step";
    case FlagKind::spike:
      return "spike";
    case FlagKind::unconfirmed:
      return "unconfirmed";
  }
  return "?";
}

std::vector<HistoryFlag> detect_steps(const std::vector<std::optional<double>>& medians,
                                      const HistorySettings& settings) {
  std::vector<HistoryFlag> flags;
  std::vector<bool> spike(medians.size(), false);
  std::size_t regime_start = 0;
  const double min_log_change = std::log1p(settings.threshold);
  for (std::size_t i = 0; i < medians.size(); ++i) {
    if (!medians[i]) continue;
    std::vector<double> window;
    for (std::size_t j = i;
         j-- > regime_start && window.size() < static_cast<std::size_t>(settings.lookback);)
      if (medians[j] && !spike[j]) window.push_back(*medians[j]);
    if (window.size() < static_cast<std::size_t>(settings.min_points)) continue;
    const double baseline = median_of(window);
    const double spread = std::max(1.4826 * median_absolute_deviation(window), kMinRelativeSpread * baseline);
    const double value = *medians[i];
    const double z = (value - baseline) / spread;
    if (std::abs(z) < settings.min_z || std::abs(std::log(value / baseline)) < min_log_change) continue;

    HistoryFlag flag{i, value > baseline, 100 * (value / baseline - 1), z, FlagKind::unconfirmed};
    if (const auto next = next_present(medians, i)) {
      const double next_change = std::log(*medians[*next] / baseline);
      const bool persists = (next_change > 0) == flag.slower && std::abs(next_change) >= min_log_change;
      flag.kind = persists ? FlagKind::step : FlagKind::spike;
      if (persists) regime_start = i;
      spike[i] = !persists;
    }
    flags.push_back(flag);
  }
  return flags;
}

std::vector<const CaseHistory*> History::regressed_at_newest() const {
  std::vector<const CaseHistory*> regressed;
  for (const CaseHistory& c : cases)
    if (!c.flags.empty() && c.flags.back().run + 1 == runs.size() && c.flags.back().slower)
      regressed.push_back(&c);
  return regressed;
}

History analyse_history(const std::filesystem::path& folder, const HistorySettings& settings,
                        std::size_t last, const CaseSelector& selected) {
  std::vector<LoadedResult> runs = load_results(folder);
  require_one_device(runs, folder.string());
  std::stable_sort(runs.begin(), runs.end(), [](const LoadedResult& a, const LoadedResult& b) {
    return a.file.context.started_utc < b.file.context.started_utc;
  });
  if (last > 0 && runs.size() > last)
    runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(last));

  History history;
  history.settings = settings;
  std::map<std::string, CaseHistory> cases;
  for (std::size_t run = 0; run < runs.size(); ++run) {
    const RunContext& context = runs[run].file.context;
    history.runs.push_back(
        {runs[run].path.string(), context.started_utc, context.git_sha, device_label(context.device)});
    for (const CaseRecord& r : runs[run].file.cases) {
      if (selected && !selected(r.name)) continue;
      CaseHistory& c = cases[r.name];
      c.name = r.name;
      c.medians_ms.resize(runs.size());
      if (r.status == CaseStatus::ok && r.timing && r.timing->samples > 0)
        c.medians_ms[run] = r.timing->median_ms;
    }
  }
  for (auto& [name, c] : cases) {
    c.medians_ms.resize(runs.size());
    c.flags = detect_steps(c.medians_ms, settings);
    history.cases.push_back(std::move(c));
  }
  return history;
}

nlohmann::json history_json(const History& history) {
  using nlohmann::json;
  const HistorySettings& s = history.settings;
  json runs = json::array(), cases = json::array();
  for (const RunInfo& run : history.runs)
    runs.push_back(
        {{"file", run.file}, {"started_utc", run.started_utc}, {"git_sha", run.git_sha}, {"gpu", run.gpu}});
  for (const CaseHistory& c : history.cases) {
    json medians = json::array(), flags = json::array();
    for (const auto& median : c.medians_ms) medians.push_back(median ? json(*median) : json(nullptr));
    for (const HistoryFlag& f : c.flags)
      flags.push_back({{"run", f.run},
                       {"direction", f.slower ? "slower" : "faster"},
                       {"change_pct", f.change_pct},
                       {"z", f.z},
                       {"kind", flag_kind_name(f.kind)}});
    cases.push_back({{"name", c.name}, {"medians_ms", medians}, {"flags", flags}});
  }
  return {{"schema", "fla-bench-history"},
          {"schema_version", "1.0.0"},
          {"settings",
           {{"lookback", s.lookback},
            {"min_points", s.min_points},
            {"threshold_pct", 100 * s.threshold},
            {"min_z", s.min_z}}},
          {"runs", runs},
          {"cases", cases}};
}

std::string device_slug(const std::string& device_name) {
  std::string slug;
  for (char ch : device_name) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-device" : slug;
}

std::filesystem::path add_to_history(const std::filesystem::path& store,
                                     const std::filesystem::path& result) {
  const ResultFile file = read_result_file(result);
  if (!file.complete)
    throw ResultFileError(result.string() + ": an unfinished run is not filed (pass the final result file)");
  std::string stamp;
  for (char ch : file.context.started_utc)
    if (ch != '-' && ch != ':') stamp += ch;
  const std::string sha = file.context.git_sha.substr(0, 12) + (file.context.git_dirty ? "-dirty" : "");
  const std::filesystem::path folder = store / device_slug(device_label(file.context.device));
  const std::filesystem::path target = folder / (stamp + "-" + sha + ".json");
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw ResultFileError(folder.string() + ": cannot create: " + error.message());
  const auto text_of = [](const std::filesystem::path& path) {
    try {
      return read_text(path);
    } catch (const TextReadError& e) {
      throw ResultFileError(path.string() + ": " + e.what());
    }
  };
  const std::string text = text_of(result);  // filed as plain JSON, whether the run was compressed or not
  if (std::filesystem::exists(target)) {
    if (text_of(target) == text) return target;  // filed before
    throw ResultFileError(target.string() +
                          " already holds a different run with the same start time and commit");
  }
  write_file_atomically(target, text);
  return target;
}

}  // namespace flabench
