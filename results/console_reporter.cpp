#include "results/console_reporter.h"

#include <algorithm>
#include <string>
#include <string_view>
#include "kernels/common/format.h"
#include "results/profile_text.h"

namespace flabench {
namespace {

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// The timed columns' header; a timed row's numbers fill exactly its width, an untimed row's blanks too.
constexpr std::string_view kTimedHeader = "  median ms  spread      n    Mtok/s      GB/s  %floor  issue ms";

}  // namespace

void ConsoleReporter::begin(const RunContext& context) {
  const DeviceRecord& d = context.device;
  if (d.backend == "cuda") {
    out_ << format("device: cuda:%d %s (%d SMs, sm_%d, CUDA runtime %s, driver %s)\n", d.index,
                   d.name.c_str(), d.sm_count, d.compute_capability, d.cuda_runtime.c_str(),
                   d.cuda_driver.c_str());
  } else {
    out_ << format("device: cpu %s (%d threads) - the fp64 reference backend\n", d.name.c_str(), d.sm_count);
  }
  const SettingsRecord& s = context.settings;
  if (s.time)
    out_ << format(
        "byte floor at %.0f GB/s (%s); timing: >= %.2f s and >= %d samples per case, L2 flush %s; ",
        s.floor_bandwidth_gbs, s.floor_bandwidth_source.c_str(), s.min_time_s, s.min_samples,
        s.l2_flush ? "on" : "off");
  out_ << "checks " << (s.check ? "on" : "off") << ", seed " << s.seed << "\n\n";
  timed_ = s.time;
  out_ << pad("case", name_width_) << (timed_ ? kTimedHeader : "") << "  check\n";
  out_.flush();
}

void ConsoleReporter::record(const CaseRecord& r) {
  if (!r.family.empty()) {
    Counts& counts = families_[r.family];
    ++(r.status == CaseStatus::ok       ? counts.ok
       : r.status == CaseStatus::failed ? counts.failed
                                        : counts.skipped);
  }
  if (r.status == CaseStatus::failed) failures_.push_back(r);
  out_ << pad(r.name, name_width_);
  if (r.status == CaseStatus::skipped) {
    out_ << "  skipped: " << r.reason << "\n";
    out_.flush();
    return;
  }
  if (r.timing && r.derived) {
    const TimingRecord& t = *r.timing;
    const double spread = t.median_ms > 0 ? 100.0 * (t.q3_ms - t.q1_ms) / t.median_ms : 0;
    out_ << format("  %9.4f  %5.1f%%  %5lld  %8.2f  %8.1f  %6.2f  %8.4f", t.median_ms, spread,
                   (long long)t.samples, r.derived->tokens_per_s / 1e6, r.derived->achieved_gbs,
                   r.derived->floor_pct, t.issue_ms);
  } else if (timed_) {
    out_ << pad("", kTimedHeader.size());
  }
  out_ << "  " << (r.check ? check_summary(*r.check) : "-");
  if (r.status == CaseStatus::failed && !r.check) out_ << "  FAILED: " << r.reason;
  out_ << "\n";
  for (const std::string& line : profile_lines(r)) out_ << "    " << line << "\n";
  out_.flush();
}

void ConsoleReporter::end(const RunSummary& s) {
  if (!families_.empty()) {
    out_ << "\nfamily        ok  failed  skipped\n";
    for (const auto& [family, n] : families_)
      out_ << format("%-10s %5d  %6d  %7d\n", family.c_str(), n.ok, n.failed, n.skipped);
  }
  if (!failures_.empty()) {
    out_ << "\nfailed:\n";
    for (const CaseRecord& r : failures_) {
      out_ << "  " << r.name << "\n    " << r.reason << "\n";
      if (!r.reproduce.empty()) out_ << "    reproduce: " << r.reproduce << "\n";
    }
  }
  out_ << format("\n%d cases: %d ok, %d failed, %d skipped in %.1f s\n", s.cases, s.ok, s.failed, s.skipped,
                 s.wall_s);
  out_.flush();
}

}  // namespace flabench
