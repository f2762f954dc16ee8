// CUPTI, loaded at run time: fla-bench starts and times where libcupti is missing (a CPU-only CI machine, a
// stripped container), and only the counter and kernel-timing features report it unavailable. The functions
// are typed from the CUDA 13.0 headers; the library is never linked.
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace flabench {

#define FLA_BENCH_CUPTI_FUNCTIONS(X)              \
  X(cuptiGetVersion)                              \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetSupportedChips)           \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiProfilerDeviceSupported)                 \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)         \
  X(cuptiRangeProfilerCounterDataGetRangeInfo)    \
  X(cuptiActivityRegisterCallbacks)               \
  X(cuptiActivityEnable)                          \
  X(cuptiActivityDisable)                         \
  X(cuptiActivityFlushAll)                        \
  X(cuptiActivityGetNextRecord)                   \
  X(cuptiActivityGetNumDroppedRecords)

class CuptiLibrary {
 public:
  // The process-wide library, or nullptr with the reason in `why` (not found, a symbol missing).
  static const CuptiLibrary* get(std::string& why);

#define FLA_BENCH_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  FLA_BENCH_CUPTI_FUNCTIONS(FLA_BENCH_CUPTI_MEMBER)
#undef FLA_BENCH_CUPTI_MEMBER

  // "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" and the like.
  std::string result_name(CUptiResult result) const;

 private:
  CuptiLibrary() = default;
};

// A CUPTI parameter struct, zeroed, with the struct size CUPTI checks the caller's ABI by.
template <class Params>
Params cupti_params(std::size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}
#define FLA_BENCH_CUPTI_PARAMS(Type) ::flabench::cupti_params<Type>(Type##_STRUCT_SIZE)

// The C strings CUPTI takes metric names as (pointing into `names`, which must outlive them).
inline std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> pointers;
  for (const std::string& name : names) pointers.push_back(name.c_str());
  return pointers;
}

// Throws CuptiError naming `what` and the result unless it is CUPTI_SUCCESS.
class CuptiError : public std::runtime_error {
 public:
  CuptiError(const std::string& what, CUptiResult result, std::string name)
      : std::runtime_error(what + ": " + name), result_(result) {}
  CUptiResult result() const { return result_; }

 private:
  CUptiResult result_;
};
void cupti_check(const CuptiLibrary& cupti, CUptiResult result, const char* what);

}  // namespace flabench
