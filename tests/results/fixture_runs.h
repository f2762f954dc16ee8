// Synthetic result files for the compare, across-GPU and history tests: cases with timing samples drawn
// around a chosen median, on a chosen device.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "results/result_set.h"
#include "suites/statistics.h"
#include "tests/results/sample_records.h"

namespace flabench::testing {

// `count` samples around `median_ms` with `noise` relative spread (normal, clipped at 3 sigma), reproducibly.
inline std::vector<double> samples_around(double median_ms, double noise, int count, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0, noise);
  std::vector<double> samples;
  for (int i = 0; i < count; ++i)
    samples.push_back(median_ms * (1 + std::clamp(normal(generator), -3 * noise, 3 * noise)));
  return samples;
}

// A timed case; a name of the form op/variant/mode/dtype/... also sets those fields.
inline CaseRecord timed_case(const std::string& name, const std::vector<double>& samples_ms) {
  CaseRecord r = sample_case(name);
  r.timing = summarize_samples(samples_ms);
  std::vector<std::string> parts;
  for (std::size_t start = 0, end = 0; end != std::string::npos; start = end + 1)
    parts.push_back(name.substr(start, (end = name.find('/', start)) - start));
  if (parts.size() >= 4) r.op = parts[0], r.variant = parts[1], r.mode = parts[2], r.dtype = parts[3];
  return r;
}

inline LoadedResult fixture_run(const std::string& path, std::vector<CaseRecord> cases,
                                const std::string& device = "NVIDIA H100 80GB HBM3",
                                const std::string& started_utc = "2026-11-22T08:00:00Z") {
  LoadedResult run{path, {sample_context(), std::move(cases), std::nullopt, true}};
  run.file.context.device.name = device;
  run.file.context.started_utc = started_utc;
  return run;
}

}  // namespace flabench::testing
