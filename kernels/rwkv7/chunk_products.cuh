// Small matrix products of the rwkv7 chunk backward's local gradients (chunk_backward_local.cuh): out = init
// + a b for a chunk's M x N matrix (M a multiple of 16, N of 8, the depth of 16), operands given as callables
// so each product reads them where they are (shared memory, mostly) with its own masks and transposes. A
// warp takes 16 x 16 strips of the output (kernels/common/chunk/warp_mma.cuh): Op bf16 puts them on the
// tensor cores with both operands in two bf16 parts (about 16 bits each, what the forward's tensor-core
// passes keep; the backward intermediates that need fp32 get no less, kernels/notes/rwkv7_chunk.md), Op float
// keeps fp32 products on the CUDA cores (fp32 inputs).
#pragma once

#include "kernels/common/chunk/warp_mma.cuh"

namespace flabench::rwkv7 {

// The products of one phase of a block's work share its warps: each product's strips are dealt on from the
// warp after the last one the phase's earlier products used, so a phase of several small products keeps every
// warp busy without a barrier between them.
template <class Op>
class ProductPhase {
 public:
  static constexpr int kStrip = 16;  // output columns a warp's job holds (two 16 x 8 tiles)

  // emit(i, j, init(i, j) + sum over t < depth of a(i, t) b(t, j)) for every (i, j) of the M x N output.
  template <class A, class B, class Emit, class Init>
  __device__ void product(int M, int N, int depth, const A& a, const B& b, const Emit& emit,
                          const Init& init) {
    constexpr int NT = kStrip / 8;
    const int warps = blockDim.x / 32, warp = threadIdx.x / 32;
    const int strips_n = (N + kStrip - 1) / kStrip, jobs = (M / 16) * strips_n;
    const int first = (warp - next_ % warps + warps) % warps;
    next_ += jobs;
    for (int job = first; job < jobs; job += warps) {
      const int m0 = job / strips_n * 16, n0 = job % strips_n * kStrip, count = min(NT, (N - n0) / 8);
      float acc[NT][4];
      chunk::for_each_accumulator(acc, count, m0, n0, [&](int i, int j, float& x) { x = init(i, j); });
      for (int k0 = 0; k0 < depth; k0 += 16)
        chunk::mma_k16<Op, NT, chunk::Exact::both>(acc, count, m0, n0, k0, a, b);
      chunk::for_each_accumulator(acc, count, m0, n0, [&](int i, int j, float& x) { emit(i, j, x); });
    }
  }
  template <class A, class B, class Emit>
  __device__ void product(int M, int N, int depth, const A& a, const B& b, const Emit& emit) {
    product(M, N, depth, a, b, emit, [](int, int) { return 0.0f; });
  }

 private:
  int next_ = 0;
};

}  // namespace flabench::rwkv7
