// x / n and x % n in the kernels' index arithmetic: a shift and a mask where n is a power of two (the head
// dims and tiles of every preset), the division otherwise. A division by a value known only at run time costs
// ~20 instructions; in the chunk kernels' staging loops it was 29% of the output pass's instructions
// (kernels/notes/chunk.md, version 11). Host code gets the same arithmetic, which is how it is tested.
#pragma once

#include <cuda_runtime.h>

#include <bit>

namespace flabench {

struct Divisor {
  int n, shift;
  bool power_of_two;
  __host__ __device__ explicit Divisor(int n) : n(n), shift(0), power_of_two((n & (n - 1)) == 0) {
#ifdef __CUDA_ARCH__
    shift = __ffs(n) - 1;
#else
    shift = std::countr_zero(static_cast<unsigned>(n));
#endif
  }
  __host__ __device__ int div(int x) const {
    return power_of_two ? x >> shift : x / n;
  }
  __host__ __device__ int mod(int x) const {
    return power_of_two ? x & (n - 1) : x % n;
  }
};

}  // namespace flabench
