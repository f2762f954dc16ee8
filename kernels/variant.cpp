#include "kernels/variant.h"

#include <algorithm>

#include "kernels/common/cuda_check.h"

namespace flabench {

std::string_view backend_name(Backend backend) {
  return backend == Backend::cuda ? "cuda" : "cpu";
}

namespace {
thread_local std::optional<std::size_t> shared_memory_cap;
}  // namespace

SharedMemoryCap::SharedMemoryCap(std::size_t bytes) : outer_(shared_memory_cap) {
  shared_memory_cap = bytes;
}
SharedMemoryCap::~SharedMemoryCap() {
  shared_memory_cap = outer_;
}

DeviceLimits within_shared_memory_cap(DeviceLimits limits) {
  if (shared_memory_cap)
    limits.shared_memory_per_block = std::min(limits.shared_memory_per_block, *shared_memory_cap);
  return limits;
}

// The variants ask for it several times a call, inside the timed region: the device's attributes are read
// once a thread and device (current_device_attribute would take its lock four times a call).
DeviceLimits current_device_limits() {
  thread_local int known_device = -1;
  thread_local DeviceLimits known;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  if (device != known_device) {
    known.shared_memory_per_block =
        std::size_t(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    known.compute_capability = 10 * current_device_attribute(cudaDevAttrComputeCapabilityMajor) +
                               current_device_attribute(cudaDevAttrComputeCapabilityMinor);
    known.multiprocessors = current_device_attribute(cudaDevAttrMultiProcessorCount);
    known_device = device;
  }
  return within_shared_memory_cap(known);
}

std::optional<std::string> why_unsupported(const Variant& variant, const Problem& problem, Mode mode,
                                           const DeviceLimits& limits) {
  const Support& support = variant.support;
  if (std::find(support.dtypes.begin(), support.dtypes.end(), problem.dtype) == support.dtypes.end())
    return variant.name + " has no " + std::string(dtype_name(problem.dtype)) + " version";
  if (mode == Mode::fwdbwd && !support.backward) return variant.name + " has no backward";
  if (!support.chunk_sizes.empty() && std::find(support.chunk_sizes.begin(), support.chunk_sizes.end(),
                                                problem.chunk_size) == support.chunk_sizes.end()) {
    std::string sizes;
    for (int size : support.chunk_sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
    return variant.name + " supports chunk sizes " + sizes + ", not " + std::to_string(problem.chunk_size);
  }
  if (support.limits) return support.limits(problem, mode, limits);
  return std::nullopt;
}

}  // namespace flabench
