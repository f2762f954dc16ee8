// Block-wide pieces of rwkv7's chunk kernels: staging rows of a [B, T, H, D] tensor into shared memory as
// fp32, what step 1 hands the others, and storing fp32 values as bf16 parts. Every kernel runs kThreads
// threads.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/rwkv7/chunk_workspace.h"

namespace flabench::rwkv7 {

constexpr int kThreads = 256;
constexpr float kLog2e = 1.4426950408889634f;  // exponents are kept in base 2 (exp2_flushed)

constexpr int kSteepLog2 = int(chunk::kFactorLimit * kLog2e);  // a gentle sub-chunk's total, log2 units

// A sub-chunk's (16-token step's) channel whose diagonal block goes through the tensor cores (total: its sum,
// log2 units); a steeper one is summed pair by pair.
__device__ __forceinline__ bool gentle(float total) {
  return total >= -float(kSteepLog2);
}

// A token's log decay in log2 units, rounded before any sum takes it: the backward's local gradients and its
// per-channel kernel (chunk_backward_channels.cuh) each sum a step's decays and must get the same numbers (a
// product contracted into the sum by one and not the other moved 403 check readings, v29).
__device__ __forceinline__ float log2_decay(float w) {
  return __fmul_rn(w, kLog2e);
}

// The sum of the 16-token steps' log decays totals[u * stride + c] over the steps [from, to).
__device__ __forceinline__ float steps_total(const float* totals, int stride, int from, int to, int c) {
  float sum = 0;
  for (int u = from; u < to; ++u) sum += totals[u * stride + c];
  return sum;
}

// What step 1 writes (ChunkWorkspace), per (head, chunk).
// W, k~, b~ (the state pass's operands) and A_qk, A_qb, q e^{Γ} (the output pass's) are fp32 for fp16 and
// fp32 inputs, two bf16 planes for bf16's (store_operand_pair), which the tensor-core passes read whole.
struct IntraOutputs {
  float *qk, *qb;  // A_qk, A_qb [C][C]
  float *w, *u;    // W [C][K], U [C][V] (U fp32 always)
  float *kg, *bg;  // k and b times e^{Γ_e - Γ_j}, e the last token of j's 16-token step [C][K]
  float* decay;    // e^{Γ_e - Γ_(s-1)} of each step [s, e] [C / 16][K], fp32
  float* qg;       // q e^{Γ} (Γ from the chunk's start, scale applied) [C][K]
  // (U and k~ feed only the forward's state pass: null where intra is recomputed for the chunked backward,
  // which reads neither, and they are then neither made nor written.)
  // What only the chunked backward reads, written where given: X = (I - A_ab)^{-1} and A_ak [C][C]; for bf16
  // inputs where its reverse scan runs on the CUDA cores, W, b~, A_qb and q e^{Γ} in fp32 too (the regions
  // above hold them as planes).
  float *x = nullptr, *ak = nullptr, *w_fp32 = nullptr, *bg_fp32 = nullptr;
  float *qb_fp32 = nullptr, *qg_fp32 = nullptr;
};

// Copies X and A_ak ([C][C + 1] in shared memory) where `out` asks for them (the forward of a fwd+bwd).
__device__ __forceinline__ void save_for_backward(const IntraOutputs& out, std::int64_t block, const float* x,
                                                  const float* ak, int C) {
  if (!out.x) return;
  for (int e = threadIdx.x; e < C * C; e += kThreads) {
    out.x[block * C * C + e] = x[e / C * (C + 1) + e % C];
    out.ak[block * C * C + e] = ak[e / C * (C + 1) + e % C];
  }
}

// Calls fn(std::integral_constant<int, R>) for R = rows in {1, 2, 3, 4, 8}: the rows a thread sums at once as
// a compile-time count, so its sums stay in registers and no predicated-off row costs an issue slot.
template <class Fn>
__device__ __forceinline__ void with_row_count(int rows, Fn&& fn) {
  switch (rows) {
    case 1:
      return fn(std::integral_constant<int, 1>{});
    case 2:
      return fn(std::integral_constant<int, 2>{});
    case 3:
      return fn(std::integral_constant<int, 3>{});
    case 4:
      return fn(std::integral_constant<int, 4>{});
    default:
      return fn(std::integral_constant<int, 8>{});
  }
}

// An fp32 value as two bf16 parts, high at `high` and low (what rounding to bf16 left) `plane` elements on:
// the planes the tensor-core passes read (chunk_intra.cuh's operands, chunk_states_mma.cuh's S^T and V_new).
__device__ __forceinline__ void store_parts(__nv_bfloat16* high, int plane, float x) {
  const __nv_bfloat16 rounded = __float2bfloat16_rn(x);
  high[0] = rounded;
  high[plane] = __float2bfloat16_rn(x - __bfloat162float(rounded));
}

// The low parts of two neighbouring values whose high parts (bf16-rounded) are `high`.
__device__ __forceinline__ __nv_bfloat162 low_parts(__nv_bfloat162 high, float x0, float x1) {
  return __floats2bfloat162_rn(x0 - __low2float(high), x1 - __high2float(high));
}
__device__ __forceinline__ std::uint32_t pair_bits(__nv_bfloat162 pair) {
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

// Two neighbouring values the same way, each plane's pair in one 32-bit store (high at an even element).
__device__ __forceinline__ void store_part_pairs(__nv_bfloat16* high, int plane, float x0, float x1) {
  const __nv_bfloat162 rounded = __floats2bfloat162_rn(x0, x1);
  *reinterpret_cast<__nv_bfloat162*>(high) = rounded;
  *reinterpret_cast<__nv_bfloat162*>(high + plane) = low_parts(rounded, x0, x1);
}

// An mma.sync accumulator strip (rows m0 .. m0 + 15, 8 NT columns: chunk::for_each_pair's layout), its top
// eight rows times `top` and the bottom eight times `bottom`, stored transposed in two bf16 parts as
// store_parts stores each value (the same roundings): column n's 16 values at high + n * ld + m0, the low
// parts `plane` elements on. On sm_90 by stmatrix's transposing form, two 8 x 8 tiles a part and column
// tile, where element by element they took two 2-byte stores a value. high 16-byte aligned, ld, plane and
// m0 multiples of 8.
template <int NT>
__device__ __forceinline__ void store_parts_transposed(__nv_bfloat16* high, int plane, int ld, int m0,
                                                       const float (&acc)[NT][4], float top, float bottom) {
#if __CUDA_ARCH__ >= 900
  const int lane = threadIdx.x & 31, row = lane & 7, half = (lane >> 3) & 1;  // lanes 0-15 address rows
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    const float x0 = acc[t][0] * top, x1 = acc[t][1] * top, x2 = acc[t][2] * bottom, x3 = acc[t][3] * bottom;
    const __nv_bfloat162 h0 = __floats2bfloat162_rn(x0, x1), h1 = __floats2bfloat162_rn(x2, x3);
    const __nv_bfloat162 l0 = low_parts(h0, x0, x1), l1 = low_parts(h1, x2, x3);
    const unsigned at = shared_address(high + (8 * t + row) * ld + m0 + 8 * half);
    chunk::stmatrix<true, 2>(at, {pair_bits(h0), pair_bits(h1)});
    chunk::stmatrix<true, 2>(at + 2 * plane, {pair_bits(l0), pair_bits(l1)});  // (bytes)
  }
#else  // (chunk::for_each_pair's layout: rows m0 + group and + 8, columns 8 t + 2 pair and + 1)
  const chunk::Lane lane;
  const int key = m0 + lane.group;
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    __nv_bfloat16* column = high + (8 * t + 2 * lane.pair) * ld + key;
    store_parts(column, plane, acc[t][0] * top);
    store_parts(column + ld, plane, acc[t][1] * top);
    store_parts(column + 8, plane, acc[t][2] * bottom);
    store_parts(column + ld + 8, plane, acc[t][3] * bottom);
  }
#endif
}

// Eight neighbouring values the same way, each plane's eight in one 16-byte store (high 16-byte aligned, and
// `plane` a multiple of eight).
__device__ __forceinline__ void store_part_octet(__nv_bfloat16* high, int plane, float4 x0, float4 x1) {
  const float x[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
  __nv_bfloat162 parts[2][4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    parts[0][q] = __floats2bfloat162_rn(x[2 * q], x[2 * q + 1]);
    parts[1][q] =
        __floats2bfloat162_rn(x[2 * q] - __low2float(parts[0][q]), x[2 * q + 1] - __high2float(parts[0][q]));
  }
  *reinterpret_cast<uint4*>(high) = *reinterpret_cast<const uint4*>(parts[0]);
  *reinterpret_cast<uint4*>(high + plane) = *reinterpret_cast<const uint4*>(parts[1]);
}

// Elements (row, col) and (row, col + 1), col even, of a [C][K] operand of the state pass in its region:
// fp32, or for bf16 inputs two bf16 planes, high then low (the same bytes), which the tensor-core pass reads
// whole by ldmatrix (chunk_states_mma.cuh) without splitting each value again on its sequential path; one
// store a plane.
template <class T>
__device__ __forceinline__ void store_operand_pair(float* region, int C, int K, int row, int col, float x0,
                                                   float x1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    store_part_pairs(reinterpret_cast<__nv_bfloat16*>(region) + row * K + col, C * K, x0, x1);
  } else {
    *reinterpret_cast<float2*>(region + row * K + col) = make_float2(x0, x1);
  }
}

// Issues cp.async copies of `rows` rows of `pieces` 16-byte pieces (a power of two dividing kBlockThreads),
// global rows `from_stride` bytes apart into shared rows `to_stride` bytes apart. A thread's first row and
// piece come from its index once and its later rows by pointer steps, so a piece costs a few instructions
// (the state pass's per-piece index arithmetic had been most of its instructions before the first barrier;
// kernels/notes/rwkv7_chunk.md, v18). `thread` numbers the copying threads (kBlockThreads of them) where
// not all of a block's threads copy. The caller commits and waits.
template <int kBlockThreads>
__device__ __forceinline__ void copy_rows(int pieces, void* to, int to_stride, const void* from,
                                          std::int64_t from_stride, int rows, int thread = threadIdx.x) {
  const int shift = __ffs(pieces) - 1, rows_per_pass = kBlockThreads >> shift;
  const int first = thread >> shift, piece = 16 * (thread & (pieces - 1));
  char* t = static_cast<char*>(to) + first * to_stride + piece;
  const char* f = static_cast<const char*>(from) + first * from_stride + piece;
  for (int r = first; r < rows; r += rows_per_pass) {
    cp_async(t, f, 16);
    t += rows_per_pass * to_stride;
    f += rows_per_pass * from_stride;
  }
}

// Where head (b, h)'s token t starts in a [B, T, H, D] tensor, in rows of D.
__device__ __forceinline__ std::int64_t token_row(const ChunkDims& d, int b, int t, int h) {
  return (std::int64_t(b) * d.T + t) * d.H + h;
}

// dst[i * row_stride + c * col_stride] = src[token t0 + i, columns c0 + c] as fp32 for i < rows and
// c < cols (a power of two), with `scale` applied; tokens at or past `valid` read as zero (a chunk's
// padding). Columns run fastest over the threads, so a warp reads consecutive elements of a token's row.
template <class T>
__device__ __forceinline__ void stage_rows(float* dst, int row_stride, int col_stride, const T* src,
                                           const ChunkDims& d, int D, int b, int h, int t0, int rows,
                                           int valid, int c0, int cols, float scale = 1.0f) {
  const int shift = __ffs(cols) - 1;
  const T* first = src + token_row(d, b, t0, h) * D + c0;
  const std::int64_t token_stride = std::int64_t(d.H) * D;
  for (int e = threadIdx.x; e < rows << shift; e += kThreads) {
    const int i = e >> shift, c = e & (cols - 1);
    const float x = i < valid ? scale * to_float(first[i * token_stride + c]) : 0.0f;
    dst[i * row_stride + c * col_stride] = x;
  }
}

}  // namespace flabench::rwkv7
