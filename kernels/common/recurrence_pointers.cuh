// Device pointers of one call by recurrence role (kernels/common/recurrence.h), shared by the CUDA variants
// of every op: binding from an op's tensors, and the small kernels that finish a backward.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/grid_stride.h"
#include "kernels/common/recurrence.h"
#include "kernels/variant.h"

namespace flabench {

template <class T>
struct Pointers {
  const T *q, *k, *v, *g, *u, *a, *b;
  const float* h0;
  T* o;
  float* ht;
};

template <class T>
struct GradPointers {
  const T* d_o;
  const float* d_ht;
  T *dq, *dk, *dv, *dg, *du, *da, *db;
  float* dh0;
  // Where set, the fused backward writes dq here in fp32 in place of dq (null: no dq at all). gsa's dp,
  // whose softmax gradient p (dp - p . dp) cancels (kernels/gsa/gla_passes_backward.cuh).
  float* dq_fp32 = nullptr;
  // Where set, the fused backward's row pass and the chunk backward's key gradients add dk and a per-key
  // gate's dg to what those tensors hold: gsa's pass 1 onto pass 2's slot gradients
  // (kernels/gsa/gla_passes_backward.cuh, chunk_backward.cuh), one rounding fewer than adding two rounded
  // tensors and no pass of its own. Per-key gates only (BackwardPasses::rows).
  bool add_dk_dg = false;
};

template <class T>
const T* role_input(const TensorMap& tensors, const std::string& name) {
  return name.empty() ? nullptr : tensors.at(name).as<const T>();
}

// The inputs by role; the outputs stay null until the forward binds them.
template <class T>
Pointers<T> bind_inputs(const RecurrenceBinding& r, const TensorMap& in) {
  return {role_input<T>(in, r.q),
          role_input<T>(in, r.k),
          role_input<T>(in, r.v),
          role_input<T>(in, r.g),
          role_input<T>(in, r.u),
          role_input<T>(in, r.a),
          role_input<T>(in, r.b),
          role_input<float>(in, r.h0),
          nullptr,
          nullptr};
}

template <class T>
GradPointers<T> bind_grads(const RecurrenceBinding& r, const TensorMap& grad_out, const TensorMap& grads) {
  auto grad = [&](const std::string& name) { return name.empty() ? nullptr : grads.at("d" + name).as<T>(); };
  return {role_input<T>(grad_out, "d" + r.o),
          role_input<float>(grad_out, "d" + r.ht),
          grad(r.q),
          grad(r.k),
          grad(r.v),
          grad(r.g),
          grad(r.u),
          grad(r.a),
          grad(r.b),
          grads.at("d" + r.h0).as<float>()};
}

// Lets `kernel` take `bytes` of dynamic shared memory on the current device. Variants call it before every
// launch, inside the timed region: the driver calls are made only when a kernel needs more than it was last
// granted on that device (the attributes last as long as the process's context). `whole_carveout` also asks
// (once) that the kernel's SMs give shared memory their largest carveout. Left to the driver, an SM's
// carveout follows each kernel's own occupancy, so a few registers more or less can give two kernels that
// run side by side different carveouts, and an SM runs blocks of different carveouts one after the other
// only: gsa's two fused passes lost their overlap that way (1.3x slower at 1,24576,16,64;
// kernels/notes/fused_recurrent.md, version 64).
template <class Kernel>
void allow_shared_memory(Kernel kernel, std::size_t bytes, bool whole_carveout = false) {
  struct Granted {
    std::size_t bytes = 0;
    bool whole_carveout = false;
  };
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, Granted> granted;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  Granted& done = granted[{reinterpret_cast<const void*>(kernel), device}];
  if (whole_carveout && !done.whole_carveout) {
    FLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        int(cudaSharedmemCarveoutMaxShared)));
    done.whole_carveout = true;
  }
  if (bytes <= done.bytes) return;
  FLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  done.bytes = bytes;
}

// Whether `extra` more bytes of dynamic shared memory a block leave `kernel` (at `threads` a block) as many
// resident blocks an SM as `bytes` do, within the device's per-block limit (current_device_limits): then a
// kernel can spend them at no cost in occupancy. Asked of the driver once per kernel, device, sizes and
// limit, since variants call it inside the timed region.
template <class Kernel>
bool shared_memory_is_free(Kernel kernel, int threads, std::size_t bytes, std::size_t extra) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, std::size_t, std::size_t, std::size_t>, bool> known;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t limit = current_device_limits().shared_memory_per_block;
  const auto key =
      std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, bytes, extra, limit);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  bool free = bytes + extra <= limit;
  if (free) {
    allow_shared_memory(kernel, bytes + extra);
    int blocks = 0, blocks_with_extra = 0;
    FLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, bytes));
    FLA_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_with_extra, kernel, threads, bytes + extra));
    free = blocks_with_extra == blocks;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  known[key] = free;
  return free;
}

// Blocks of `kernel` an SM holds at `threads` threads and `bytes` of dynamic shared memory (allowed for it
// first), asked of the driver once per kernel, device and sizes, since variants call it inside the timed
// region.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t bytes) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, std::size_t>, int> known;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, bytes);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  allow_shared_memory(kernel, bytes);
  int blocks = 0;
  FLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, bytes));
  const std::lock_guard<std::mutex> lock(mutex);
  return known[key] = blocks;
}

// sums[o inner + i] = the sum over c < count of parts[(o count + c) inner + i], in fp32 and in the order of c
// (so a backward's result does not depend on scheduling): the partial gradients a backward left per batch
// (rwkv6's bonus: outer 1, count B, inner H K) or per query-head copy (gsa's chunk backward).
template <class In, class Out>
__global__ void sum_parts_kernel(const In* parts, Out* sums, std::int64_t outer, int count,
                                 std::int64_t inner) {
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < outer * inner;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t o = idx / inner, i = idx % inner;
    float sum = 0;
    for (int c = 0; c < count; ++c) sum += to_float(parts[(o * count + c) * inner + i]);
    sums[idx] = from_float<Out>(sum);
  }
}

template <class In, class Out>
void sum_parts(const In* parts, Out* sums, std::int64_t outer, int count, std::int64_t inner,
               cudaStream_t stream) {
  sum_parts_kernel<In, Out><<<grid_stride_blocks(outer * inner), kGridStrideThreads, 0, stream>>>(
      parts, sums, outer, count, inner);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench
