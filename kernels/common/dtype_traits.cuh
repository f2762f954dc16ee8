// Device loads and stores in the I/O dtypes; all arithmetic is fp32.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <functional>
#include <type_traits>

#include "kernels/common/dtype.h"

namespace flabench {

__device__ __forceinline__ float to_float(float x) {
  return x;
}
__device__ __forceinline__ float to_float(__half x) {
  return __half2float(x);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// Two neighbouring values stored in one access (at: aligned to the pair, 2 * sizeof(T) bytes).
template <class T>
__device__ __forceinline__ void store_pair(T* at, float first, float second) {
  if constexpr (std::is_same_v<T, float>)
    *reinterpret_cast<float2*>(at) = make_float2(first, second);
  else if constexpr (std::is_same_v<T, __half>)
    *reinterpret_cast<__half2*>(at) = __floats2half2_rn(first, second);
  else
    *reinterpret_cast<__nv_bfloat162*>(at) = __floats2bfloat162_rn(first, second);
}

// Calls fn(T{}) with T the storage type of `dtype`: one place that turns the run-time dtype into a type.
template <class Fn>
void dispatch_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::fp32:
      fn(float{});
      return;
    case DType::fp16:
      fn(__half{});
      return;
    case DType::bf16:
      fn(__nv_bfloat16{});
      return;
  }
}

// A variant's forward or backward (Call: ForwardCall or BackwardCall) from f(tag, call), the tag a value of
// the storage type of the call's dtype: how every CUDA variant turns the run-time dtype into its kernels'
// type.
template <class Call, class F>
std::function<void(const Call&)> by_dtype(F f) {
  return [f](const Call& call) { dispatch_dtype(call.problem.dtype, [&](auto tag) { f(tag, call); }); };
}

}  // namespace flabench
