// One warp's share of a small matrix product, the building block of the chunk kernels: a strip of NT tiles of
// 16 x 8 fp32 accumulators, acc += A[16 x 16] B[16 x 8 each], in mma.sync's m16n8k16 register layout.
// Operands come from functions a(m, k) and b(k, n) returning fp32, so a caller scales them on the way in
// (a decay factor per key channel, a zero past the sequence's end) without staging a scaled copy. Op picks
// the arithmetic: bf16 or fp16 operands on the tensor cores with fp32 accumulation, or fp32 operands on the
// tensor cores in 3xTF32 (mma_k16_tf32x3: one tf32 part would cost fp32 inputs three decimal digits; three
// keep fp32's accuracy, at a third of the CUDA cores' instructions; kernels/notes/chunk.md, version 53).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/shared_address.cuh"

namespace flabench::chunk {

struct Lane {
  int group, pair;  // mma.sync's groupID (lane / 4) and thread-in-group (lane % 4)
  __device__ Lane() : group((threadIdx.x & 31) >> 2), pair(threadIdx.x & 3) {}
};

template <class Op>
__device__ std::uint32_t pack(float low, float high) {
  if constexpr (std::is_same_v<Op, __nv_bfloat16>) {
    const __nv_bfloat162 two = __floats2bfloat162_rn(low, high);
    return *reinterpret_cast<const std::uint32_t*>(&two);
  } else {
    const __half2 two = __floats2half2_rn(low, high);
    return *reinterpret_cast<const std::uint32_t*>(&two);
  }
}

// pack<bf16>'s inverse: the pair's two values (x the low element).
__device__ inline float2 unpacked(std::uint32_t pair) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&pair));
}

// An fp32 value as two 16-bit parts, high + low: a product with it keeps ~16 bits instead of 8 (bf16).
template <class Op>
struct Parts {
  std::uint32_t high, low;
};
template <class Op>
__device__ Parts<Op> split(float x0, float x1) {
  const std::uint32_t high = pack<Op>(x0, x1);
  float h0, h1;
  if constexpr (std::is_same_v<Op, __nv_bfloat16>) {
    const __nv_bfloat162 two = *reinterpret_cast<const __nv_bfloat162*>(&high);
    h0 = __low2float(two), h1 = __high2float(two);
  } else {
    const __half2 two = *reinterpret_cast<const __half2*>(&high);
    h0 = __low2float(two), h1 = __high2float(two);
  }
  return {high, pack<Op>(x0 - h0, x1 - h1)};
}

template <class Op>
__device__ void mma_16x8x16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<Op, __nv_bfloat16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// N (2 or 4) 8 x 8 blocks of 16-bit values from shared memory: lane 8m + r gives the address of row r of
// block m (16-byte aligned), and each lane receives the pairs of mma.sync's operand layout: as stored for
// an A operand stored [m][k] or a B operand stored [n][k], transposed (kTranspose) for [k][m] or [k][n].
template <bool kTranspose, int N>
__device__ void ldmatrix(std::uint32_t (&r)[N], const void* row) {
  const auto address = shared_address(row);
  if constexpr (N == 4 && kTranspose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  else if constexpr (N == 4)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(address));
  static_assert(N == 4 || (N == 2 && !kTranspose), "the shapes the kernels use");
}

// ldmatrix's inverse for N (2 or 4) 8 x 8 blocks (sm_90): each lane gives the pairs of mma.sync's accumulator
// layout (register m for block m), and lane 8m + r (m < N) the shared address (shared_address's) of row r of
// block m, 16-byte aligned, which receives row r of that block, or its column r where kTranspose.
template <bool kTranspose, int N>
__device__ __forceinline__ void stmatrix(unsigned row, const std::uint32_t (&r)[N]) {
  static_assert((N == 2 && kTranspose) || N == 4, "the shapes the kernels use");
#if __CUDA_ARCH__ >= 900
  if constexpr (N == 2)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(row), "r"(r[0]),
                 "r"(r[1])
                 : "memory");
  else if constexpr (kTranspose)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row),
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
#else
  __trap();  // no stmatrix below sm_90: callers keep a path of their own there
#endif
}

// Which operand holds fp32 values (a state, accumulated scores, inputs scaled by decays) rather than 16-bit
// inputs: it goes to the tensor cores in two parts (an extra product each), so its rounding to 16 bits does
// not reach the result.
enum class Exact { none, a, b, both };

// A's fragment (rows m0..m0+15, k0..k0+15) from a(m, k), in two 16-bit parts (af_low: what af rounds off).
template <class Op, class A>
__device__ void a_fragment(int m0, int k0, const A& a, std::uint32_t (&af)[4], std::uint32_t (&af_low)[4]) {
  const Lane lane;
  const int top = m0 + lane.group, bottom = top + 8, k = k0 + 2 * lane.pair;
  const Parts<Op> a0 = split<Op>(a(top, k), a(top, k + 1)), a1 = split<Op>(a(bottom, k), a(bottom, k + 1)),
                  a2 = split<Op>(a(top, k + 8), a(top, k + 9)),
                  a3 = split<Op>(a(bottom, k + 8), a(bottom, k + 9));
  af[0] = a0.high, af[1] = a1.high, af[2] = a2.high, af[3] = a3.high;
  af_low[0] = a0.low, af_low[1] = a1.low, af_low[2] = a2.low, af_low[3] = a3.low;
}

// acc[x] (x < count) += A times B's 16 x 8 tile x (rows k0 .. k0 + 15, columns n0 + 8x .. + 7 of b(k, n)),
// A given as its fragment af and what af rounds off (af_low, read where exact asks for A whole), B split in
// two parts as it is read: af b_high, then af_low b_high, then af b_low.
template <class Op, int NT, Exact exact, class B>
__device__ void mma_b_split(float (&acc)[NT][4], int count, const std::uint32_t (&af)[4],
                            const std::uint32_t (&af_low)[4], int k0, int n0, const B& b) {
  const Lane lane;
  const int k = k0 + 2 * lane.pair;
#pragma unroll
  for (int x = 0; x < NT; ++x) {
    if (x >= count) break;
    const int n = n0 + 8 * x + lane.group;
    const Parts<Op> b0 = split<Op>(b(k, n), b(k + 1, n)), b1 = split<Op>(b(k + 8, n), b(k + 9, n));
    const std::uint32_t bf[2] = {b0.high, b1.high}, bf_low[2] = {b0.low, b1.low};
    mma_16x8x16<Op>(acc[x], af, bf);
    if constexpr (exact == Exact::a || exact == Exact::both) mma_16x8x16<Op>(acc[x], af_low, bf);
    if constexpr (exact == Exact::b || exact == Exact::both) mma_16x8x16<Op>(acc[x], af, bf_low);
  }
}

// x rounded to the nearest TF32 value. sm_90 has round-to-nearest-even as one instruction (cvt.rn, PTX 7.8);
// earlier GPUs have only ties-away (cvt.rna), which ptxas builds from a finite test, an add, a select and a
// mask (three instructions a value where they pipeline; a 3xTF32 split seven against two). The two differ
// only at an exact tie, with the same error bound (kernels/notes/chunk.md, version 57).
__device__ __forceinline__ std::uint32_t to_tf32(float x) {
  std::uint32_t r;
#if __CUDA_ARCH__ >= 900
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#endif
  return r;
}
// fp32 products on the tensor cores to fp32's accuracy (3xTF32): each operand as a TF32 value and what its
// rounding left, also TF32 (22 significant bits together), and three products, the small ones first: big x
// small, small x big, big x big (small x small, 2^-22 of a product, left out). mma_k16 takes it for every
// fp32 product (chunk version 53; gsa's fp32 query gradients first, kernels/notes/gsa.md, version 46).
__device__ __forceinline__ void tf32_parts(float x, std::uint32_t& big, std::uint32_t& small) {
  big = to_tf32(x);
  small = to_tf32(x - __uint_as_float(big));
}
__device__ __forceinline__ void mma_16x8x8_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                                const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// As chunk::mma_k16 (acc[x] += A B over k0 <= k < k0 + 16, rows m0 .. m0 + 15, tile x at columns n0 + 8x)
// for fp32 operands, in 3xTF32: m16n8k8's fragments (A: rows group and group + 8, columns pair and pair + 4;
// B: rows pair and pair + 4, column group; the accumulators as m16n8k16's).
template <int NT, class A, class B>
__device__ void mma_k16_tf32x3(float (&acc)[NT][4], int count, int m0, int n0, int k0, const A& a,
                               const B& b) {
  const Lane lane;
  const int top = m0 + lane.group, bottom = top + 8;
#pragma unroll
  for (int k8 = k0; k8 < k0 + 16; k8 += 8) {
    const int k = k8 + lane.pair;
    std::uint32_t a_big[4], a_small[4];
    tf32_parts(a(top, k), a_big[0], a_small[0]);
    tf32_parts(a(bottom, k), a_big[1], a_small[1]);
    tf32_parts(a(top, k + 4), a_big[2], a_small[2]);
    tf32_parts(a(bottom, k + 4), a_big[3], a_small[3]);
#pragma unroll
    for (int x = 0; x < NT; ++x) {
      if (x >= count) break;
      const int n = n0 + 8 * x + lane.group;
      std::uint32_t b_big[2], b_small[2];
      tf32_parts(b(k, n), b_big[0], b_small[0]);
      tf32_parts(b(k + 4, n), b_big[1], b_small[1]);
      mma_16x8x8_tf32(acc[x], a_big, b_small);
      mma_16x8x8_tf32(acc[x], a_small, b_big);
      mma_16x8x8_tf32(acc[x], a_big, b_big);
    }
  }
}

// A warp's count of 8-column tiles (the `count` of the products below), known at run time or when compiling
// (std::integral_constant): a constant count leaves no test, branch and WARPSYNC before each tile's product.
__device__ constexpr int tile_count(int n) {
  return n;
}
template <int N>
__device__ constexpr int tile_count(std::integral_constant<int, N>) {
  return N;
}

// acc[x] (rows m0..m0+15, columns n0 + 8x .. + 7, for x < count) += sum over k0 <= k < k0 + 16 of
// a(m, k) b(k, n). The whole warp calls it. fp32 operands (Op = float) go in 3xTF32, whatever `exact` says.
template <class Op, int NT, Exact exact = Exact::none, class A, class B>
__device__ void mma_k16(float (&acc)[NT][4], int count, int m0, int n0, int k0, const A& a, const B& b) {
  if constexpr (std::is_same_v<Op, float>) {
    mma_k16_tf32x3(acc, count, m0, n0, k0, a, b);
  } else {
    std::uint32_t af[4], af_low[4];
    a_fragment<Op>(m0, k0, a, af, af_low);
    mma_b_split<Op, NT, exact>(acc, count, af, af_low, k0, n0, b);
  }
}

// acc[x] (x < count) += A times B's 16 x 8 tile x, A given as kParts fragments (one, or an fp32 operand's two
// 16-bit parts, a product each) and B's rows k0 .. k0 + 15 of 16-bit values stored [k][n] (row r at
// b + r * ld, tile x at columns n0 + 8x): by ldmatrix.trans, two tiles a load. Rows of an odd number of
// 16-byte vectors keep ldmatrix's 8 rows on distinct banks; an odd count reads the 8 columns after the last
// tile (padding), unused.
template <class Op, int NT, int kParts>
__device__ void mma_b_stored_kn(float (&acc)[NT][4], int count, const std::uint32_t (&af)[kParts][4],
                                const Op* b, int ld, int k0, int n0) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int x = 0; x < NT; x += 2) {
    if (x >= count) break;
    std::uint32_t bf[4];
    ldmatrix<true>(bf, b + (k0 + lane % 8 + lane / 8 % 2 * 8) * ld + n0 + 8 * x + lane / 16 * 8);
    const std::uint32_t first[2] = {bf[0], bf[1]}, second[2] = {bf[2], bf[3]};
#pragma unroll
    for (int part = 0; part < kParts; ++part) {
      mma_16x8x16<Op>(acc[x], af[part], first);
      if (x + 1 < count) mma_16x8x16<Op>(acc[x + 1], af[part], second);
    }
  }
}

// As mma_b_stored_kn with B stored [n][k] (row n at b + n * ld, columns k0 .. k0 + 15), for the tiles
// first <= x < count: by ldmatrix, a tile a load serving every part of A.
template <class Op, int NT, int kParts>
__device__ void mma_b_stored_nk(float (&acc)[NT][4], int first, int count,
                                const std::uint32_t (&af)[kParts][4], const Op* b, int ld, int k0, int n0) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int x = 0; x < NT; ++x) {
    if (x >= count) break;
    if (x < first) continue;
    std::uint32_t bf[2];
    ldmatrix<false>(bf, b + (n0 + 8 * x + lane % 8) * ld + k0 + lane / 8 % 2 * 8);
#pragma unroll
    for (int part = 0; part < kParts; ++part) mma_16x8x16<Op>(acc[x], af[part], bf);
  }
}
// ... with one A fragment, every tile x < count.
template <class Op, int NT>
__device__ void mma_b_stored_nk(float (&acc)[NT][4], int count, const std::uint32_t (&af)[4], const Op* b,
                                int ld, int k0, int n0) {
  const std::uint32_t one[1][4] = {{af[0], af[1], af[2], af[3]}};
  mma_b_stored_nk<Op>(acc, 0, count, one, b, ld, k0, n0);
}

// An A fragment of 16-bit inputs as the bf16 operand a state's planes take (staging.cuh, StatePart): bf16's
// as it is, fp16's as two bf16 parts (high + low hold its 11 bits exactly).
template <class T>
constexpr int kStateOperandParts = std::is_same_v<T, __half> ? 2 : 1;
template <class T>
__device__ void state_operand(const std::uint32_t (&raw)[4],
                              std::uint32_t (&parts)[kStateOperandParts<T>][4]) {
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    if constexpr (std::is_same_v<T, __half>) {
      const __half2 two = *reinterpret_cast<const __half2*>(&raw[r]);
      const Parts<__nv_bfloat16> split_pair = split<__nv_bfloat16>(__low2float(two), __high2float(two));
      parts[0][r] = split_pair.high, parts[1][r] = split_pair.low;
    } else {
      parts[0][r] = raw[r];
    }
  }
}

// acc[x] (x < count) += A times a state tile's two bf16 planes stored [n][k] (the high plane at `planes`, the
// low one `plane` elements on), A a fragment of 16-bit inputs (state_operand): each of its parts against the
// high plane, its high part against the low one (the low parts' product is ~2^-16 of the term).
template <class T, int NT>
__device__ void mma_state_planes_nk(float (&acc)[NT][4], int count, const std::uint32_t (&a)[4],
                                    const __nv_bfloat16* planes, int plane, int ld, int k0, int n0) {
  std::uint32_t parts[kStateOperandParts<T>][4];
  state_operand<T>(a, parts);
  mma_b_stored_nk<__nv_bfloat16>(acc, 0, count, parts, planes, ld, k0, n0);
  mma_b_stored_nk<__nv_bfloat16>(acc, count, parts[0], planes + plane, ld, k0, n0);
}

// A's fragment (rows m0..m0+15, k0..k0+15) from 16-bit values stored [m][k] (row m at a + m * ld): ldmatrix.
template <class Op>
__device__ void a_stored_mk(std::uint32_t (&af)[4], const Op* a, int ld, int m0, int k0) {
  const int lane = threadIdx.x % 32;
  ldmatrix<false>(af, a + (m0 + lane % 16) * ld + k0 + lane / 16 * 8);
}

// The same from values stored [k][m] (row k at a + k * ld): ldmatrix.trans.
template <class Op>
__device__ void a_stored_km(std::uint32_t (&af)[4], const Op* a, int ld, int m0, int k0) {
  const int lane = threadIdx.x % 32;
  ldmatrix<true>(af, a + (k0 + lane % 8 + lane / 16 * 8) * ld + m0 + lane / 8 % 2 * 8);
}

// An A fragment of bf16 values stored [k][m] (a_stored_km: k a token) times each token's factor, as two bf16
// parts: factor points at the factors of tokens k0 + 2 pair and k0 + 2 pair + 1, of which the fragment's
// registers 0, 1 hold those tokens' values and registers 2, 3 the tokens 8 later.
__device__ inline void scale_token_pairs(const std::uint32_t (&raw)[4], const float* factor,
                                         std::uint32_t (&af)[2][4]) {
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const float* f = factor + (r >= 2 ? 8 : 0);
    const __nv_bfloat162 two = *reinterpret_cast<const __nv_bfloat162*>(&raw[r]);
    const Parts<__nv_bfloat16> parts =
        split<__nv_bfloat16>(__low2float(two) * f[0], __high2float(two) * f[1]);
    af[0][r] = parts.high, af[1][r] = parts.low;
  }
}

// An A fragment of bf16 values (a_stored_mk's: registers 0, 2 row `group`, 1, 3 row group + 8) times each
// row's factor (factor[group], factor[group + 8]), as two bf16 parts.
__device__ inline void scale_row_pairs(const std::uint32_t (&raw)[4], const float* factor,
                                       std::uint32_t (&af)[2][4]) {
  const Lane lane;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const float f = factor[lane.group + (r % 2) * 8];
    const __nv_bfloat162 two = *reinterpret_cast<const __nv_bfloat162*>(&raw[r]);
    const Parts<__nv_bfloat16> parts = split<__nv_bfloat16>(__low2float(two) * f, __high2float(two) * f);
    af[0][r] = parts.high, af[1][r] = parts.low;
  }
}

// Visits the strip's accumulators two neighbours at a time, f(row, column, first, second) with the values at
// (row, column) and (row, column + 1): a caller stores the pair in one access.
template <int NT, class F>
__device__ void for_each_pair(float (&acc)[NT][4], int count, int m0, int n0, const F& f) {
  const Lane lane;
#pragma unroll
  for (int x = 0; x < NT; ++x) {
    if (x >= count) break;
    const int n = n0 + 8 * x + 2 * lane.pair;
    f(m0 + lane.group, n, acc[x][0], acc[x][1]);
    f(m0 + lane.group + 8, n, acc[x][2], acc[x][3]);
  }
}

// Visits every accumulator of the strip with its (row, column): f(row, column, value&).
template <int NT, class F>
__device__ void for_each_accumulator(float (&acc)[NT][4], int count, int m0, int n0, const F& f) {
  for_each_pair(acc, count, m0, n0, [&](int row, int column, float& first, float& second) {
    f(row, column, first);
    f(row, column + 1, second);
  });
}

}  // namespace flabench::chunk
