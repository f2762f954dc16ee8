// The aligned pieces wholly inside a byte range: what a bulk copy or prefetch that takes only aligned
// addresses and sizes may touch of a range without reading outside it (simple_gla's fused forward prefetches
// its chunks' gates so: chunk_fused_forward.cu, prefetch_gates). Host-safe, so it is tested on the CPU.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstdint>

namespace flabench {

struct ByteSpan {
  std::uintptr_t from, to;  // [from, to); empty where to <= from
};

// The `align`-byte pieces (align a power of two) wholly inside [first, end).
__host__ __device__ constexpr ByteSpan aligned_within(std::uintptr_t first, std::uintptr_t end,
                                                      std::uintptr_t align) {
  return {(first + align - 1) & ~(align - 1), end & ~(align - 1)};
}

}  // namespace flabench
