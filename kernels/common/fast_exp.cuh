// Exponentials by one MUFU.EX2 with flush to zero: results below 2^-126 become 0 rather than subnormal
// (exp2f and __expf spend three more instructions on them, ex2.approx without ftz; kernels/notes/chunk.md,
// version 58). A decay that small leaves nothing an fp32 state can hold, and a softmax weight that small
// (against the largest's 1) nothing its sum can.
#pragma once

namespace flabench {

// 2^x
__device__ __forceinline__ float exp2_flushed(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// e^x
__device__ __forceinline__ float exp_flushed(float x) {
  return exp2_flushed(x * 1.4426950408889634f);
}

}  // namespace flabench
