#include "profiles/kernel_tracer.h"

#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "profiles/cupti_library.h"

namespace flabench {
namespace {

constexpr std::size_t kBufferBytes = 8 << 20;
constexpr std::size_t kBufferAlignment = 8;

// Records arrive on CUPTI's threads; they are gathered here until measure() reads them.
struct Collected {
  std::mutex mutex;
  std::vector<TracedLaunch> kernels;  // in completion order
  std::size_t dropped = 0;
};
Collected& collected() {
  static Collected instance;
  return instance;
}

const CuptiLibrary* library() {
  std::string why;
  return CuptiLibrary::get(why);
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  const CuptiLibrary* cupti = library();
  Collected& out = collected();
  std::lock_guard lock(out.mutex);
  CUpti_Activity* record = nullptr;
  while (cupti->cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (kernel->end > kernel->start)
      out.kernels.push_back({readable_kernel_name(kernel->name), kernel->start, kernel->end, kernel->streamId,
                             kernel->correlationId});
  }
  std::size_t dropped = 0;
  if (cupti->cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
    out.dropped += dropped;
  std::free(buffer);
}

}  // namespace

std::string readable_kernel_name(const char* mangled) {
  if (!mangled) return "?";
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  // Kernels in an unnamed namespace: its "(anonymous namespace)::" would read as the parameter list below,
  // and every such kernel of a namespace would get the same name.
  const std::string unnamed = "(anonymous namespace)::";
  for (std::size_t at; (at = name.find(unnamed)) != std::string::npos;) name.erase(at, unnamed.size());
  // The parameter list starts at the '(' that closes no template argument list.
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0) return name.substr(0, i);
  }
  return name;
}

std::unique_ptr<KernelTracer> KernelTracer::start(std::string& why) {
  const CuptiLibrary* cupti = CuptiLibrary::get(why);
  if (!cupti) return nullptr;
  CUptiResult result = cupti->cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (result == CUPTI_SUCCESS) result = cupti->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (result != CUPTI_SUCCESS) {
    why = "kernel times unavailable: " + cupti->result_name(result) +
          (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " (another profiler is attached)" : "");
    return nullptr;
  }
  return std::unique_ptr<KernelTracer>(new KernelTracer);
}

KernelTracer::~KernelTracer() {
  const CuptiLibrary* cupti = library();
  cupti->cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cupti->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

KernelTrace KernelTracer::measure(const std::function<void()>& run, int repeats) {
  const CuptiLibrary* cupti = library();
  cudaDeviceSynchronize();
  cupti->cuptiActivityFlushAll(
      CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // records of earlier work are not this case's
  {
    std::lock_guard lock(collected().mutex);
    collected().kernels.clear();
    collected().dropped = 0;
  }
  for (int i = 0; i < repeats; ++i) run();
  cudaDeviceSynchronize();
  cupti->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(collected().mutex);
  if (collected().dropped > 0)
    throw std::runtime_error("CUPTI dropped " + std::to_string(collected().dropped) + " kernel records");
  KernelTrace trace;
  std::map<std::string, std::size_t> index;
  const std::vector<TracedLaunch>& records = collected().kernels;
  for (const TracedLaunch& r : records) {
    auto [found, added] = index.emplace(r.kernel, trace.kernels.size());
    if (added) trace.kernels.push_back({r.kernel, 0, 0});
    trace.kernels[found->second].calls += 1.0 / repeats;
    trace.kernels[found->second].ms += (r.end_ns - r.start_ns) * 1e-6 / repeats;
  }
  trace.launches = first_run_launches(records, repeats);
  trace.timeline = last_run_timeline(records, repeats);
  return trace;
}

}  // namespace flabench
