// Small matrix products of the rwkv7 chunk backward's local gradients (chunk_backward_local.cuh,
// chunk_backward_local_mma.cuh): out = init + a b for a chunk's M x N matrix (M a multiple of 16, the depth
// too), a warp taking 16 x 16 strips of the output (kernels/common/chunk/warp_mma.cuh). Two kinds of
// operands: callables returning fp32 (ProductPhase<float>::product, for fp32 inputs: 3xTF32 on the tensor
// cores, fp32-grade, chunk::mma_k16), and bf16 planes in shared memory read whole by ldmatrix (plane_product,
// on the tensor cores for 16-bit inputs: an fp32 value as a high and a low part, about 16 bits, what the
// forward's tensor-core passes keep; a 16-bit input exact in one part for bf16, two for fp16).
#pragma once

#include <cuda_bf16.h>

#include "kernels/common/chunk/warp_mma.cuh"

namespace flabench::rwkv7 {

// The products of one phase of a block's work share its warps: each product's strips are dealt on from the
// warp after the last one the phase's earlier products used, so a phase of several small products keeps every
// warp busy without a barrier between them.
template <class Op>
class ProductPhase {
 public:
  static constexpr int kStrip = 16;  // output columns a warp's job holds (two 16 x 8 tiles)

  // This warp's share of the M x N output's 16 x kStrip strips (N / kStrip a power of two): jobs first,
  // first + step, ... below count, a job's strip by shifts (v31: a division by a runtime count had been a
  // fifth of the products' instructions).
  struct Deal {
    int first, count, step, shift;
    __device__ int m0(int job) const { return job >> shift << 4; }
    __device__ int n0(int job) const { return (job & ((1 << shift) - 1)) * kStrip; }
  };
  __device__ Deal deal(int M, int N) {
    const int warps = blockDim.x / 32, warp = threadIdx.x / 32;
    const int strips_n = (N + kStrip - 1) / kStrip, jobs = (M / 16) * strips_n;
    const int first = (warp - next_ % warps + warps) % warps;
    next_ += jobs;
    return {first, jobs, warps, __ffs(strips_n) - 1};
  }

  // job(m0, n0) for each of this warp's strips.
  template <class Job>
  __device__ void strips(int M, int N, const Job& job) {
    const Deal d = deal(M, N);
    for (int j = d.first; j < d.count; j += d.step) job(d.m0(j), d.n0(j));
  }

  // emit(i, j, init(i, j) + sum over t < depth of a(i, t) b(t, j)) for every (i, j) of the M x N output (N a
  // multiple of 8).
  template <class A, class B, class Emit, class Init>
  __device__ void product(int M, int N, int depth, const A& a, const B& b, const Emit& emit,
                          const Init& init) {
    constexpr int NT = kStrip / 8;
    strips(M, N, [&](int m0, int n0) {
      const int count = min(NT, (N - n0) / 8);
      float acc[NT][4];
      chunk::for_each_accumulator(acc, count, m0, n0, [&](int i, int j, float& x) { x = init(i, j); });
      for (int k0 = 0; k0 < depth; k0 += 16)
        chunk::mma_k16<Op, NT, chunk::Exact::both>(acc, count, m0, n0, k0, a, b);
      chunk::for_each_accumulator(acc, count, m0, n0, [&](int i, int j, float& x) { emit(i, j, x); });
    });
  }
  template <class A, class B, class Emit>
  __device__ void product(int M, int N, int depth, const A& a, const B& b, const Emit& emit) {
    product(M, N, depth, a, b, emit, [](int, int) { return 0.0f; });
  }

 private:
  int next_ = 0;
};

// An operand as bf16 planes in shared memory: kParts planes (an fp32 value's high and low parts, or a 16-bit
// input's one) `plane` elements apart, rows `ld` elements apart (16-byte aligned, an odd number of 16-byte
// vectors so that ldmatrix's eight rows fall on distinct banks). Stored by rows of the product's outer index
// ([m][k] for a left operand, [n][k] for a right one), or by rows of its depth (kDepthRows: [k][m], [k][n]).
template <int kParts, bool kDepthRows>
struct Planes {
  static constexpr int parts = kParts;
  const __nv_bfloat16* at;
  int plane, ld;
};

// One term of a plane product: the left operand times the right one over `depth` (a multiple of 16).
template <class A, class B>
struct PlaneTerm {
  A a;
  B b;
  int depth;
};
template <class A, class B>
__device__ PlaneTerm<A, B> term(const A& a, const B& b, int depth) {
  return {a, b, depth};
}

// The left operand's fragments (rows m0 .. m0 + 15, depth k0 .. k0 + 15), a part each.
template <int kParts, bool kDepthRows>
__device__ void left_fragments(const Planes<kParts, kDepthRows>& a, int m0, int k0,
                               std::uint32_t (&af)[kParts][4]) {
#pragma unroll
  for (int part = 0; part < kParts; ++part) {
    if constexpr (kDepthRows)
      chunk::a_stored_km<__nv_bfloat16>(af[part], a.at + part * a.plane, a.ld, m0, k0);
    else
      chunk::a_stored_mk<__nv_bfloat16>(af[part], a.at + part * a.plane, a.ld, m0, k0);
  }
}

// The right operand's two 16 x 8 tiles (depth k0 .. k0 + 15, columns n0 .. n0 + 15), a part each: bf[part]
// holds tile 0 in registers 0, 1 and tile 1 in 2, 3.
template <int kParts, bool kDepthRows>
__device__ void right_fragments(const Planes<kParts, kDepthRows>& b, int k0, int n0,
                                std::uint32_t (&bf)[kParts][4]) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int part = 0; part < kParts; ++part) {
    const __nv_bfloat16* at = b.at + part * b.plane;
    if constexpr (kDepthRows)
      chunk::ldmatrix<true>(bf[part], at + (k0 + lane % 8 + lane / 8 % 2 * 8) * b.ld + n0 + lane / 16 * 8);
    else
      chunk::ldmatrix<false>(bf[part], at + (n0 + lane % 8 + lane / 16 * 8) * b.ld + k0 + lane / 8 % 2 * 8);
  }
}

// acc (a 16 x 16 strip at (m0, n0)) += a term's product, in the order chunk::mma_b_split takes an fp32
// operand's parts: high by high, then the left's low part by the right's high one, then the reverse (a
// one-part operand's low part is zero and its products are skipped).
template <class A, class B>
__device__ void add_term(float (&acc)[2][4], int m0, int n0, const PlaneTerm<A, B>& t) {
  for (int k0 = 0; k0 < t.depth; k0 += 16) {
    std::uint32_t af[A::parts][4], bf[B::parts][4];
    left_fragments(t.a, m0, k0, af);
    right_fragments(t.b, k0, n0, bf);
#pragma unroll
    for (int x = 0; x < 2; ++x) {
      const std::uint32_t high[2] = {bf[0][2 * x], bf[0][2 * x + 1]};
      chunk::mma_16x8x16<__nv_bfloat16>(acc[x], af[0], high);
      if constexpr (A::parts == 2) chunk::mma_16x8x16<__nv_bfloat16>(acc[x], af[1], high);
      if constexpr (B::parts == 2) {
        const std::uint32_t low[2] = {bf[1][2 * x], bf[1][2 * x + 1]};
        chunk::mma_16x8x16<__nv_bfloat16>(acc[x], af[0], low);
      }
    }
  }
}

// emit(i, j, x_ij, x_i,j+1) for every even j of the M x N output (M and N multiples of 16), x = init + the
// terms' products in their order; init(i, j) an element's start, read for a warp's next strip before the
// products of this one (v31: where the start is a sum kept in global memory over the value slices, its loads'
// latency had been a third of the kernel's waits on memory).
template <class Emit, class Init, class... Terms>
__device__ void plane_product(ProductPhase<__nv_bfloat16>& phase, int M, int N, const Emit& emit,
                              const Init& init, const Terms&... terms) {
  const auto deal = phase.deal(M, N);
  const auto start = [&](int job, float(&acc)[2][4]) {
    chunk::for_each_accumulator(acc, 2, deal.m0(job), deal.n0(job),
                                [&](int i, int j, float& x) { x = init(i, j); });
  };
  float next[2][4];
  if (deal.first < deal.count) start(deal.first, next);
  for (int job = deal.first; job < deal.count; job += deal.step) {
    float acc[2][4];
#pragma unroll
    for (int x = 0; x < 2; ++x)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[x][r] = next[x][r];
    if (job + deal.step < deal.count) start(job + deal.step, next);
    const int m0 = deal.m0(job), n0 = deal.n0(job);
    (add_term(acc, m0, n0, terms), ...);
    chunk::for_each_pair(acc, 2, m0, n0, [&](int i, int j, float x0, float x1) { emit(i, j, x0, x1); });
  }
}

}  // namespace flabench::rwkv7
