// JSON form of the result model (nlohmann/json). Keys are documented in results/SCHEMA.md and checked by
// results/schema/result.schema.json.
#pragma once

#include <nlohmann/json.hpp>

#include "results/record.h"

namespace flabench {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceRecord, backend, index, name, uuid, compute_capability, sm_count,
                                   sm_clock_mhz, memory_clock_mhz, memory_bus_bits, memory_bytes, l2_bytes,
                                   shared_memory_per_block, bandwidth_theoretical_gbs, bandwidth_measured_gbs,
                                   cuda_runtime, cuda_driver)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SettingsRecord, min_time_s, min_samples, warmup_time_s,
                                                l2_flush, check, time, seed, floor_bandwidth_gbs,
                                                floor_bandwidth_source, shard_index, shard_count,
                                                selection_cases, selection_digest)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingRecord, samples, median_ms, mean_ms, stddev_ms, min_ms,
                                                max_ms, q1_ms, q3_ms, samples_ms, issue_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DerivedRecord, tokens_per_s, flops, tflops_per_s, floor_bytes, floor_ms,
                                   achieved_gbs, floor_pct)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TensorCheckRecord, tensor, rms_ratio, max_abs, threshold,
                                                nonfinite, passed, detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CheckRecord, passed, shape, tensors)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelCounterRecord, kernel, metrics)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CounterRecord, available, reason, chip, passes, dropped, metrics, kernels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MemoryRecord, tensor_bytes, workspace_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelTimeRecord, kernel, calls, ms, share_pct)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LaunchRecord, kernel, stream, start_ms, end_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunSummary, cases, ok, failed, skipped, wall_s)

// environment is left out when empty, and read as empty where absent (files before schema 1.7).
void to_json(nlohmann::json& j, const RunContext& c);
void from_json(const nlohmann::json& j, RunContext& c);

// Optional parts (timing, derived, check) are left out when absent.
void to_json(nlohmann::json& j, const CaseRecord& r);
void from_json(const nlohmann::json& j, CaseRecord& r);

// The whole file: {"schema", "schema_version", "complete", "context", "cases", "summary"}.
nlohmann::json result_file_json(const ResultFile& file);

}  // namespace flabench
