#include "results/profile_text.h"

#include <initializer_list>
#include <map>
#include <optional>

#include "kernels/common/format.h"

namespace flabench {
namespace {

// The first of a metric's per-chip names that the record holds (the plan resolves one per chip).
std::optional<double> metric(const std::map<std::string, double>& metrics,
                             std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto found = metrics.find(name); found != metrics.end()) return found->second;
  return std::nullopt;
}

std::optional<double> dram_bytes(const std::map<std::string, double>& metrics) {
  const auto read = metric(metrics, {"dram__bytes_read.sum", "dram__bytes_op_read.sum"});
  const auto written = metric(metrics, {"dram__bytes_write.sum", "dram__bytes_op_write.sum"});
  if (!read || !written) return std::nullopt;
  return *read + *written;
}

std::string counter_line(const CaseRecord& r) {
  const std::map<std::string, double>& m = r.counters->metrics;
  std::string line = "counters:";
  if (const auto bytes = dram_bytes(m)) {
    line += format(" DRAM %.3g GB", *bytes / 1e9);
    if (r.derived && r.derived->floor_bytes > 0)
      line += format(" = %.2fx floor", *bytes / r.derived->floor_bytes);
    if (const auto ns = metric(m, {"gpu__time_duration.sum"}); ns && *ns > 0)
      line += format(" at %.0f GB/s", *bytes / *ns);
    line += ";";
  }
  const auto add = [&](const char* label, std::initializer_list<const char*> names, const char* unit) {
    if (const auto value = metric(m, names)) line += format(" %s %.3g%s;", label, *value, unit);
  };
  add("SM", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}, "%");
  add("occupancy", {"sm__warps_active.avg.pct_of_peak_sustained_active"}, "%");
  add("tensor",
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
       "sm__pipe_tensor_cycles_active_v2.avg.pct_of_peak_sustained_elapsed"},
      "%");
  add("GMMA inst", {"sm__inst_executed_pipe_tensor_op_gmma.sum"}, "");
  add("L2 hit", {"lts__t_sector_hit_rate.pct"}, "%");
  const auto spill_ld = metric(m, {"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"});
  const auto spill_st = metric(m, {"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"});
  if (spill_ld && spill_st) line += format(" spills %.3g B;", *spill_ld + *spill_st);
  const auto conflicts_ld = metric(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"});
  const auto conflicts_st = metric(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"});
  if (conflicts_ld && conflicts_st)
    line += format(" smem bank conflicts %.3g", *conflicts_ld + *conflicts_st);
  if (line.back() == ';') line.pop_back();
  return line;
}

// Each kernel's DRAM bytes per run, from the counters' per-launch records, by kernel name.
std::map<std::string, double> dram_by_kernel(const CaseRecord& r) {
  std::map<std::string, double> bytes;
  if (!r.counters || !r.counters->available) return bytes;
  for (const KernelCounterRecord& k : r.counters->kernels)
    if (const auto b = dram_bytes(k.metrics)) bytes[k.kernel] += *b;
  return bytes;
}

// The console's kernel name: the project's namespaces left out (the JSON keeps the whole name).
std::string short_kernel_name(std::string name) {
  for (const std::string prefix : {"flabench::fused::", "flabench::naive::", "flabench::"})
    for (std::size_t at = name.find(prefix); at != std::string::npos; at = name.find(prefix, at))
      name.erase(at, prefix.size());
  return name;
}

}  // namespace

std::vector<std::string> profile_lines(const CaseRecord& r) {
  std::vector<std::string> lines;
  if (r.counters && r.counters->available) lines.push_back(counter_line(r));
  if (!r.kernel_times || r.kernel_times->empty()) return lines;
  const std::map<std::string, double> dram = dram_by_kernel(r);
  lines.push_back("   share        ms  calls   DRAM GB  kernel");
  for (const KernelTimeRecord& k : *r.kernel_times) {
    const auto bytes = dram.find(k.kernel);
    lines.push_back(format("  %5.1f%%  %8.4f  %5.3g  %8s  %s", k.share_pct, k.ms, k.calls,
                           bytes == dram.end() ? "-" : format("%.3g", bytes->second / 1e9).c_str(),
                           short_kernel_name(k.kernel).c_str()));
  }
  return lines;
}

}  // namespace flabench
