// The same cases on several GPUs side by side: absolute time, and each time against that GPU's own roofline,
// its measured copy bandwidth (the byte floor) and its fp32 peak, so a reader sees which kernels are bound by
// memory, by compute, or by neither (latency) on which GPU.
//
// Regime: a case's arithmetic intensity (the op's recurrent-form FLOPs per floor byte) against the GPU's
// ridge point (fp32 peak / bandwidth) says which roof applies; the case's efficiency is its share of that
// roof. Below 25% of the roof that applies, the case is latency-bound: neither memory nor arithmetic is what
// holds it back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/compare.h"

namespace flabench {

// FP32 lanes x 2 (FMA) x SMs x SM clock, from the device record (0 for the cpu backend or an unknown chip).
double fp32_peak_flops(const DeviceRecord& device);

struct GpuColumn {
  std::string label;         // device name
  std::string source;        // the file or folder
  double bandwidth_gbs = 0;  // the byte floor's bandwidth in the files
  double fp32_peak_tflops = 0;
};

struct AcrossCell {
  double median_ms = 0;
  double floor_pct = 0;  // % of the byte floor at this GPU's bandwidth
  double peak_pct = 0;   // % of this GPU's fp32 peak (recurrent-form FLOPs)
  std::string regime;    // "memory", "compute" or "latency"
  double roof_pct = 0;   // share of the roof that applies
};

struct AcrossRow {
  std::string name;
  std::vector<std::optional<AcrossCell>> cells;  // one per GPU; empty where the case was not timed there
};

struct AcrossGpus {
  std::vector<GpuColumn> gpus;
  std::vector<AcrossRow> rows;  // cases timed on at least two of the GPUs
};

// One side per GPU (a file or folder each; every file of a side must share its device). Throws
// ResultFileError when a side mixes devices.
AcrossGpus across_gpus(const std::vector<std::pair<std::string, std::vector<LoadedResult>>>& sides,
                       const CaseSelector& selected = {});

}  // namespace flabench
