#include "results/across_gpus.h"

#include <map>

namespace flabench {
namespace {

constexpr double kLatencyBelowRoofPct = 25;

// FP32 lanes per SM by compute capability: 64 on Volta, Turing and GA100; 128 on GA10x, Ada and Hopper.
int fp32_lanes_per_sm(int compute_capability) {
  switch (compute_capability) {
    case 70:
    case 72:
    case 75:
    case 80:
      return 64;
    case 86:
    case 87:
    case 89:
    case 90:
    case 100:
    case 103:
    case 120:
      return 128;
    default:
      return 0;
  }
}

double bandwidth_of(const RunContext& context) {
  return context.settings.floor_bandwidth_gbs > 0 ? context.settings.floor_bandwidth_gbs
                                                  : context.device.bandwidth_measured_gbs;
}

AcrossCell cell_of(const CaseRecord& r, const GpuColumn& gpu) {
  AcrossCell cell;
  cell.median_ms = r.timing->median_ms;
  if (!r.derived) return cell;
  const double seconds = cell.median_ms * 1e-3;
  const double peak = gpu.fp32_peak_tflops * 1e12, bandwidth = gpu.bandwidth_gbs * 1e9;
  cell.floor_pct = bandwidth > 0 ? 100 * r.derived->floor_bytes / bandwidth / seconds : 0;
  cell.peak_pct = peak > 0 ? 100 * r.derived->flops / peak / seconds : 0;
  const bool memory_side = peak <= 0 || r.derived->floor_bytes <= 0 ||
                           r.derived->flops / r.derived->floor_bytes < peak / bandwidth;
  cell.roof_pct = memory_side ? cell.floor_pct : cell.peak_pct;
  cell.regime = cell.roof_pct < kLatencyBelowRoofPct ? "latency" : memory_side ? "memory" : "compute";
  return cell;
}

}  // namespace

double fp32_peak_flops(const DeviceRecord& device) {
  return 2.0 * fp32_lanes_per_sm(device.compute_capability) * device.sm_count * device.sm_clock_mhz * 1e6;
}

AcrossGpus across_gpus(const std::vector<std::pair<std::string, std::vector<LoadedResult>>>& sides,
                       const CaseSelector& selected) {
  AcrossGpus table;
  std::map<std::string, AcrossRow> rows;
  for (std::size_t g = 0; g < sides.size(); ++g) {
    const auto& [source, results] = sides[g];
    require_one_device(results, source);
    const RunContext& context = results.front().file.context;
    table.gpus.push_back({device_label(context.device), source, bandwidth_of(context),
                          fp32_peak_flops(context.device) / 1e12});
    for (const auto& [name, entry] : cases_by_name(results)) {
      const CaseRecord& r = *entry.record;
      if ((selected && !selected(name)) || r.status != CaseStatus::ok || !r.timing || r.timing->samples == 0)
        continue;
      AcrossRow& row = rows[name];
      row.name = name;
      row.cells.resize(sides.size());
      row.cells[g] = cell_of(r, table.gpus.back());
    }
  }
  for (auto& [name, row] : rows) {
    row.cells.resize(sides.size());
    int present = 0;
    for (const auto& cell : row.cells) present += cell.has_value();
    if (present >= 2) table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace flabench
