// Turning a run-time value into a compile-time one: fn(std::integral_constant<int, V>) for the V of Values
// that equals `value`, so a kernel template is instantiated once per value it takes (a chunk size, a head
// dim's groups, a thread's rows) and the loops over it unroll. A value not among them takes the last: callers
// check membership first (a variant's limits), where a fallback would hide a wrong value.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>
#include <utility>

namespace flabench {

#ifdef __CUDACC__
#pragma nv_exec_check_disable  // host or device, as the caller and fn are
#endif
template <int... Values, class Fn>
__host__ __device__ __forceinline__ void with_one_of(int value, Fn&& fn) {
  constexpr int values[] = {Values...};
  constexpr int last = values[sizeof...(Values) - 1];
  bool done = false;
  ((done =
        done || ((value == Values || Values == last) && (fn(std::integral_constant<int, Values>{}), true))),
   ...);
}

// The same with the values as a sequence type (a layout's list of the counts it may pick).
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <int... Values, class Fn>
__host__ __device__ __forceinline__ void with_one_of(std::integer_sequence<int, Values...>, int value,
                                                     Fn&& fn) {
  with_one_of<Values...>(value, fn);
}

// fn(std::integral_constant<int, I>) for each I of the sequence, in order.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Fn, int... I>
__host__ __device__ __forceinline__ void for_each_constant(Fn&& fn, std::integer_sequence<int, I...>) {
  (fn(std::integral_constant<int, I>{}), ...);
}

// fn(std::integral_constant<int, I>) for I = 0 .. N - 1 in order: a loop whose index must be a constant
// (a register array's index) without relying on the compiler to unroll it.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <int N, class Fn>
__host__ __device__ __forceinline__ void for_each_constant(Fn&& fn) {
  for_each_constant(fn, std::make_integer_sequence<int, N>{});
}

// x itself where it is a run-time value, or the value of a std::integral_constant (with_one_of's argument):
// code that takes either, folded where it is a constant (simple_gla's decayed_scores_of_warp). The
// constant's conversion operator is host-only without --expt-relaxed-constexpr, hence ::value.
template <class X>
__host__ __device__ constexpr auto value_of(X x) {
  if constexpr (std::is_arithmetic_v<X>)
    return x;
  else
    return X::value;
}

}  // namespace flabench
