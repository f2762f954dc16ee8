// rwkv7 chunk backward, its third step: per key channel c, a row's pairs (dq_i, da_i), a column's (dk_m,
// db_m) and dw, from the pair matrices' gradients dA_qk, dA_qb, dA_ak, dA_ab and the per-channel terms the
// local gradients hand over (chunk_backward_local.cuh); the state's and factor-1 pairs' terms aside:
//   dq_i = sum_{m < i} (dA_qk[i,m] k_m + dA_qb[i,m] b_m) e^{Γ_i - Γ_m}
//   da_i = sum_{m < i - 1} (dA_ak[i,m] k_m + dA_ab[i,m] b_m) e^{Γe_i - Γ_m}
//   dk_m = sum_{i > m} dA_qk[i,m] q_i e^{Γ_i - Γ_m} + sum_{i > m + 1} dA_ak[i,m] a_i e^{Γe_i - Γ_m}
//   db_m the same with dA_qb, dA_ab.
// A kernel of its own, a block per (16 key channels, chunk, head): inside the local gradients' kernel these
// sums' registers and shared memory cost that kernel a third of its resident warps (kernels/notes/
// rwkv7_chunk.md, v21). The sums run on the tensor cores (chunk_products.cuh's operand types: two-part bf16
// operands for 16-bit inputs, 3xTF32 for fp32), factored through the chunk's 16-token steps
// as the forward's intra factors its pair matrices (chunk_intra_mma.cuh): with l, le and r = total - l a
// step's inclusive, exclusive and remaining log decay sums, a row's factor is e^{l_i} (e^{le_i}), a column's
// e^{r_m}, and between the steps J < I the product takes e^{the totals of the steps between}; a gentle step's
// diagonal block takes e^{-total}, a steep one (below -kSteepLog2) is summed pair by pair in fp32, every
// exponent <= 0. So every factor stays within fp32's and bf16's range for any w < 0. The pairs whose factor
// is exactly 1 (a token with itself, a row's exclusive pair with the token before it) stay out of the tensor
// cores' sums and out of dw's terms: their terms cancel exactly in dw, and their roundings, O(1) against a dw
// of O(e^w), would not (kernels/notes/rwkv7_chunk.md, v20).
#pragma once

#include <type_traits>

#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_backward_states.cuh"
#include "kernels/rwkv7/chunk_channel_plan.h"
#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

// The pairs a sum over the tensor cores takes (a row's pair (i, m), or the column's (m, i) read transposed):
// m < i for dA_qk and dA_qb, m < i - 1 for dA_ak and dA_ab; the others have factor 1 (fixed(), below).
__device__ __forceinline__ bool summed_pair(Pair x, int i, int m) {
  return x == kQk || x == kQb ? m < i : m < i - 1;
}

// Both kinds below give the same reads: at(x, i, m) and the factor-1 pairs fixed(x, i) (dA_qk(i, i), dA_qb(i,
// i), dA_ak(i, i - 1), dA_ab(i, i - 1)); and the tensor cores' sums over a 16 x 16 block of the summed pairs,
// rows i0 of a row's pairs (add_rows: acc += dA_x[i0.., m0..] b) or of a column's (add_columns: acc +=
// dA_x[i0.., m0..]^T b, the transposed block), times b(k, n): fp32's for one gradient over the slice's 16
// channels, the planes' for a side's two gradients over 8 (each shares the operand it builds element by
// element: fp32's A, the planes' B).

// fp32 inputs: the fp32 gradients [C][C + 4] each (rows 4 banks apart for the A fragments), `plane` floats
// apart, fragments built as the products read them (3xTF32).
struct PairGrads {
  const float* base;
  int ld, plane;
  __device__ float at(Pair x, int i, int m) const { return base[x * plane + i * ld + m]; }
  __device__ float fixed(Pair x, int i) const { return at(x, i, x == kQk || x == kQb ? i : i - 1); }
  template <class Op, class B>
  __device__ void add_rows(float (&acc)[2][4], Pair x, int i0, int m0, const B& b) const {
    const auto a = [&](int i, int m) { return summed_pair(x, i, m) ? at(x, i, m) : 0.0f; };
    chunk::mma_k16<Op, 2, chunk::Exact::both>(acc, 2, i0, 0, m0, a, b);
  }
  // (the column's mask phrased as summed_pair's, i > m, gives other PTX than before the planes; this phrasing
  // keeps the fp32 kernel's as it was)
  template <class Op, class B>
  __device__ void add_columns(float (&acc)[2][4], Pair x, int m0, int i0, const B& b) const {
    const auto a = [&](int m, int i) {
      return (x == kQk || x == kQb ? i > m : i > m + 1) ? at(x, i, m) : 0.0f;
    };
    chunk::mma_k16<Op, 2, chunk::Exact::both>(acc, 2, m0, 0, i0, a, b);
  }
};

// 16-bit inputs: the summed pairs (the others zero) in two bf16 parts as store_part_pairs splits them, made
// once a block, read by ldmatrix: the same fragments, bit for bit, as the element-by-element split every
// warp made of every slice's products before (kernels/notes/rwkv7_chunk.md, v57). A matrix's high plane,
// then its low plane, each [C][C] swizzled (pair_plane_offset); the factor-1 pairs in fp32 [kPairs][C]
// after the planes. A steep channel's pairs, summed one by one in
// fp32, read high + low (16 bits of the 24; the tensor cores' sums take the same).
template <int C>
struct PairPlanes {
  static_assert(C % 16 == 0 && C <= 64, "a row of at most eight 16-byte pieces");
  static constexpr int kPlane = C * C;
  __nv_bfloat16* base;
  __device__ float* fixed_base() const { return reinterpret_cast<float*>(base + 2 * kPairs * kPlane); }
  __device__ static int offset(int i, int m) { return pair_plane_offset(C, i, m); }
  __device__ __nv_bfloat16* high(Pair x) const { return base + 2 * x * kPlane; }
  __device__ float at(Pair x, int i, int m) const {
    const __nv_bfloat16* h = high(x) + offset(i, m);
    return __bfloat162float(h[0]) + __bfloat162float(h[kPlane]);
  }
  __device__ float fixed(Pair x, int i) const { return fixed_base()[x * C + i]; }

  // Splits the four [C][C] fp32 gradients at `from` (global memory) into the planes and the fixed pairs, by
  // kThreadsN threads (`thread` numbers them), kBatch pairs of values a thread loaded at once: one load's
  // wait a batch rather than a pair (the loop's stores to shared memory kept the next pair's load behind
  // them).
  template <int kThreadsN>
  __device__ void make(const float* from, unsigned thread) const {
    constexpr unsigned kTotal = kPairs * kPlane / 2, kEach = kTotal / kThreadsN,
                       kBatch = kEach < 8 ? kEach : 8;
    static_assert(kTotal % kThreadsN == 0 && kEach % kBatch == 0, "whole batches");
#pragma unroll
    for (unsigned b0 = 0; b0 < kEach; b0 += kBatch) {
      float2 v[kBatch];
#pragma unroll
      for (unsigned r = 0; r < kBatch; ++r)
        v[r] = __ldg(reinterpret_cast<const float2*>(from) + thread + (b0 + r) * kThreadsN);
#pragma unroll
      for (unsigned r = 0; r < kBatch; ++r) {
        const unsigned e = thread + (b0 + r) * kThreadsN;
        const int x = 2 * e / kPlane, i = 2 * e % kPlane / C, m = 2 * e % C;
        const Pair pair = Pair(x);
        store_part_pairs(high(pair) + offset(i, m), kPlane, summed_pair(pair, i, m) ? v[r].x : 0.0f,
                         summed_pair(pair, i, m + 1) ? v[r].y : 0.0f);
        const int fixed_m = x == kQk || x == kQb ? i : i - 1;
        if (fixed_m == m || fixed_m == m + 1) fixed_base()[x * C + i] = fixed_m == m ? v[r].x : v[r].y;
      }
    }
  }
  // A side's two gradients over one 8-channel tile of b (columns n0 .. n0 + 7): acc[0] += dA_x b, acc[1] +=
  // dA_y b, rows i0 of a row's pairs (add_rows) or of a column's (add_columns, the transposed blocks). b's
  // two parts are made once for both products (v61: a side's two gradients read the same operand), and each
  // accumulator takes its products in mma_b_split's order.
  template <class Op, class B>
  __device__ void add_rows(float (&acc)[2][1][4], Pair x, Pair y, int i0, int m0, int n0, const B& b) const {
    const int lane = threadIdx.x % 32, i = i0 + lane % 16, m = m0 + lane / 16 * 8;
    std::uint32_t a[2][2][4];  // [pair][part]
    chunk::ldmatrix<false>(a[0][0], high(x) + offset(i, m));
    chunk::ldmatrix<false>(a[0][1], high(x) + kPlane + offset(i, m));
    chunk::ldmatrix<false>(a[1][0], high(y) + offset(i, m));
    chunk::ldmatrix<false>(a[1][1], high(y) + kPlane + offset(i, m));
    add_both<Op>(acc, a, m0, n0, b);
  }
  template <class Op, class B>
  __device__ void add_columns(float (&acc)[2][1][4], Pair x, Pair y, int m0, int i0, int n0,
                              const B& b) const {
    const int lane = threadIdx.x % 32, i = i0 + lane % 8 + lane / 16 * 8, m = m0 + lane / 8 % 2 * 8;
    std::uint32_t a[2][2][4];
    chunk::ldmatrix<true>(a[0][0], high(x) + offset(i, m));
    chunk::ldmatrix<true>(a[0][1], high(x) + kPlane + offset(i, m));
    chunk::ldmatrix<true>(a[1][0], high(y) + offset(i, m));
    chunk::ldmatrix<true>(a[1][1], high(y) + kPlane + offset(i, m));
    add_both<Op>(acc, a, i0, n0, b);
  }
  template <class Op, class B>
  __device__ static void add_both(float (&acc)[2][1][4], const std::uint32_t (&a)[2][2][4], int k0, int n0,
                                  const B& b) {
    const chunk::Lane lane;
    const int k = k0 + 2 * lane.pair, n = n0 + lane.group;
    const auto b0 = chunk::split<Op>(b(k, n), b(k + 1, n)), b1 = chunk::split<Op>(b(k + 8, n), b(k + 9, n));
    const std::uint32_t high[2] = {b0.high, b1.high}, low[2] = {b0.low, b1.low};
#pragma unroll
    for (int g = 0; g < 2; ++g) {
      chunk::mma_16x8x16<Op>(acc[g][0], a[g][0], high);
      chunk::mma_16x8x16<Op>(acc[g][0], a[g][1], high);
      chunk::mma_16x8x16<Op>(acc[g][0], a[g][0], low);
    }
  }
};
// The per-channel terms of the block's channels in shared memory (ChannelTerms' order; staged_terms_floats).
struct StagedTerms {
  const float* base;
  int C;
  __device__ float qs(int i, int cl) const { return base[i * kKeySlice + cl]; }
  __device__ float xdw(int i, int cl) const { return base[(C + i) * kKeySlice + cl]; }
  __device__ float ks(int i, int cl) const { return base[(2 * C + i) * kKeySlice + cl]; }
  __device__ float bs(int i, int cl) const { return base[(3 * C + i) * kKeySlice + cl]; }
  __device__ float state_dot(int cl) const { return base[4 * C * kKeySlice + cl]; }
};

enum class Grad { q, a, k, b, w };  // the tensor cores' sums are kept in this order

// The block's channels in shared memory, in floats: (l, r), (le, e^w), (k, b), (scale q, a) as float2
// [C][kKeySlice]; the tensor cores' operands k e^r, b e^r, q e^l, a e^le [C][kKeyRow]; the step pairs'
// factors [pairs][kKeySlice]; dw's terms of the rows (q . dq, a . da), of the columns (k . dk + b . db) and
// of the state after the chunk [C][kKeySlice]; the steps' totals [C / 16][kKeySlice]; the tensor cores' sums
// [Grad q, a, k, b][C][kKeySlice], whose room dw's sums over pieces of the chunk take after them
// (channel_slice_floats).
struct ChannelSlice {
  float* base;
  int C;
  // (the regions are found from base and C where used: a pointer each held in registers spilled)
  __device__ int tokens() const { return C * kKeySlice; }
  __device__ float2* lr() const { return reinterpret_cast<float2*>(base); }
  __device__ float2* lew() const { return lr() + tokens(); }
  __device__ float2* kb() const { return lr() + 2 * tokens(); }
  __device__ float2* qa() const { return lr() + 3 * tokens(); }
  __device__ float* kr() const { return base + 8 * tokens(); }
  __device__ float* br() const { return kr() + C * kKeyRow; }
  __device__ float* ql() const { return kr() + 2 * C * kKeyRow; }
  __device__ float* al() const { return kr() + 3 * C * kKeyRow; }
  __device__ float* factor() const { return kr() + 4 * C * kKeyRow; }
  __device__ float* grow() const { return factor() + step_pairs(C) * kKeySlice; }
  __device__ float* gexcl() const { return grow() + tokens(); }
  __device__ float* gcol() const { return grow() + 2 * tokens(); }
  __device__ float* gend() const { return grow() + 3 * tokens(); }
  __device__ float* totals() const { return grow() + 4 * tokens(); }
  __device__ float* sums(Grad grad) const {
    return totals() + (C / kCheckpointTokens) * kKeySlice + int(grad) * tokens();
  }
  __device__ float* piece_sums() const { return sums(Grad::q); }  // channel_dw's [3][kDwPieces][kDwRow]
};

// The copies a block issues (the caller commits them): fp32 inputs' pair gradients (four [C][C] matrices in
// the workspace) into rows of C + 4, once a chunk; a slice's terms (ChannelTerms in the workspace, [C][K]
// each) and its channels' raw inputs, rows past the sequence's end zeroed.
template <int C>
__device__ __forceinline__ void fetch_pair_grads(float* planes, const float* pairs_from) {
  constexpr int row_pieces = C / 4;
  for (int e = threadIdx.x; e < 4 * C * row_pieces; e += kThreads) {
    const int row = e / row_pieces, piece = e % row_pieces;
    cp_async(planes + row * (C + 4) + 4 * piece, pairs_from + row * C + 4 * piece, 16);
  }
}
template <int C>
__device__ __forceinline__ void fetch_slice_terms(float* terms, const float* terms_from, int K, int c0) {
  constexpr int kTermPieces = kKeySlice / 4;
  const ChannelTerms at(C, K);
  for (int e = threadIdx.x; e < (4 * C + 1) * kTermPieces; e += kThreads) {
    const int row = e / kTermPieces, piece = e % kTermPieces;  // row 4 C: S . dS
    const float* from =
        row < 4 * C ? terms_from + std::size_t(row / C) * C * K + row % C * K : terms_from + at.state_dot;
    cp_async(terms + row * kKeySlice + 4 * piece, from + c0 + 4 * piece, 16);
  }
}
// first: the chunk's first token's element of channel 0 in the [B, T, H, K] inputs.
template <class T, int C>
__device__ __forceinline__ void fetch_slice_inputs(T* raw, const Pointers<T>& p, std::int64_t first,
                                                   std::int64_t token_stride, int L, int c0) {
  constexpr int kInputPieces = kKeySlice * sizeof(T) / 16;
  for (int e = threadIdx.x; e < kChannelInputs * C * kInputPieces; e += kThreads) {
    const int input = e / (C * kInputPieces), t = e / kInputPieces % C, piece = e % kInputPieces;
    T* to = raw + (input * C + t) * kKeySlice + piece * (16 / sizeof(T));
    const T* from = input == kInW   ? p.g
                    : input == kInK ? p.k
                    : input == kInB ? p.b
                    : input == kInQ ? p.q
                                    : p.a;
    if (t < L)
      cp_async(to, from + first + c0 + t * token_stride + piece * (16 / sizeof(T)), 16);
    else
      *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
  }
}

// The factor of the step pair (I, J <= I) in a slice's factor table: rows (0, 0), (1, 0), (1, 1), (2, 0), ...
__device__ __forceinline__ int step_pair(int I, int J) {
  return I * (I + 1) / 2 + J;
}

// The decays' sums of the block's channels within each step (a thread walks a step's 16 tokens, as the local
// gradients do); log_decay(i, cl) gives token i's w in log2 units, zero past the sequence's end.
template <class LogDecay>
__device__ __forceinline__ void stage_decays(const ChannelSlice& s, int C, const LogDecay& log_decay) {
  const int steps = C / kCheckpointTokens;
  for (int e = threadIdx.x; e < steps * kKeySlice; e += kThreads) {
    const int cl = e % kKeySlice, first = e / kKeySlice * kCheckpointTokens;
    float w[kCheckpointTokens], sums[kCheckpointTokens], sum = 0;
#pragma unroll
    for (int t = 0; t < kCheckpointTokens; ++t) w[t] = log_decay(first + t, cl);
#pragma unroll
    for (int t = 0; t < kCheckpointTokens; ++t) {
      const int at = (first + t) * kKeySlice + cl;
      const float le = sum;
      sum += w[t];
      sums[t] = sum;
      s.lew()[at] = make_float2(le, exp2_flushed(w[t]));
    }
#pragma unroll
    for (int t = 0; t < kCheckpointTokens; ++t)
      s.lr()[(first + t) * kKeySlice + cl] = make_float2(sums[t], sum - sums[t]);
    s.totals()[e] = sum;
  }
}

// The channels' inputs and the tensor cores' operands, and the step pairs' factors, after the decays.
// inputs(i, cl) gives token i's (k, b, scale q, a), zero past the sequence's end.
template <class Inputs>
__device__ __forceinline__ void stage_channel_operands(const ChannelSlice& s, int C, const Inputs& inputs) {
  for (int e = threadIdx.x; e < C * kKeySlice; e += kThreads) {
    const int i = e / kKeySlice, cl = e % kKeySlice, row = i * kKeyRow + cl;
    const float2 lr = s.lr()[e];
    const float le = s.lew()[e].x;
    const float4 in = inputs(i, cl);
    s.kb()[e] = make_float2(in.x, in.y), s.qa()[e] = make_float2(in.z, in.w);
    const float to_end = exp2_flushed(lr.y);
    s.kr()[row] = in.x * to_end, s.br()[row] = in.y * to_end;
    s.ql()[row] = in.z * exp2_flushed(lr.x), s.al()[row] = in.w * exp2_flushed(le);
  }
  for (int e = threadIdx.x; e < step_pairs(C) * kKeySlice; e += kThreads) {
    const int cl = e % kKeySlice;
    int I, J;
    chunk::lower_pair(e / kKeySlice, I, J);
    const float total = s.totals()[I * kKeySlice + cl];
    float factor = 1;  // neighbouring steps
    if (J == I)
      factor = gentle(total) ? exp2_flushed(-total) : 0.0f;
    else if (J < I - 1)
      factor = exp2_flushed(steps_total(s.totals(), kKeySlice, J + 1, I, cl));
    s.factor()[e] = factor;
  }
}

// The tensor cores' share of the slice's dq, da, dk, db (the decayed pairs between and, for the gentle
// channels, within the steps) into s.sums. fp32 inputs: a warp's job is one of the four (a compile-time
// choice, so that the operands' masks are chosen once) and one step's tokens, over the slice's 16 channels
// (the A fragments, the pairs' gradients, made once for both 8-channel tiles).
template <class Op, Grad kGrad>
__device__ __forceinline__ void channel_tensor_job(const ChannelSlice& s, const PairGrads& dA, int steps,
                                                   int S) {
  const int s0 = S * kCheckpointTokens;
  float x[2][4] = {};
  if constexpr (kGrad == Grad::q ||
                kGrad == Grad::a) {  // a row's pairs (i in S, m <= i), over the steps J <= S
    constexpr bool q = kGrad == Grad::q;
    for (int J = 0; J <= S; ++J) {
      const float* f = s.factor() + step_pair(S, J) * kKeySlice;
      const auto kr = [&](int m, int c) { return s.kr()[m * kKeyRow + c] * f[c]; };
      const auto br = [&](int m, int c) { return s.br()[m * kKeyRow + c] * f[c]; };
      dA.template add_rows<Op>(x, q ? kQk : kAk, s0, J * kCheckpointTokens, kr);
      dA.template add_rows<Op>(x, q ? kQb : kAb, s0, J * kCheckpointTokens, br);
    }
  } else {  // a column's pairs (m in S, i > m), over the steps I >= S
    constexpr bool k = kGrad == Grad::k;
    for (int I = S; I < steps; ++I) {
      const float* f = s.factor() + step_pair(I, S) * kKeySlice;
      const auto ql = [&](int i, int c) { return s.ql()[i * kKeyRow + c] * f[c]; };
      const auto al = [&](int i, int c) { return s.al()[i * kKeyRow + c] * f[c]; };
      dA.template add_columns<Op>(x, k ? kQk : kQb, s0, I * kCheckpointTokens, ql);
      dA.template add_columns<Op>(x, k ? kAk : kAb, s0, I * kCheckpointTokens, al);
    }
  }
  float* to = s.sums(kGrad);
  chunk::for_each_accumulator(x, 2, s0, 0, [&](int i, int cl, float& v) { to[i * kKeySlice + cl] = v; });
}
// 16-bit inputs: a warp's job is one step S of one side (rows: dq and da; columns: dk and db) over one of the
// slice's two 8-channel tiles. The side's two gradients read the same B operand (k e^r, b e^r, or q e^l,
// a e^le, times the step pair's factor), made element by element once for both (v61); fp32's jobs
// (channel_tensor_job) share their A fragments instead, which they build element by element.
template <class Op, bool kRows, class Pairs>
__device__ __forceinline__ void channel_tile_job(const ChannelSlice& s, const Pairs& dA, int steps, int S,
                                                 int tile) {
  const int s0 = S * kCheckpointTokens, n0 = 8 * tile;
  float x[2][1][4] = {};  // dq and da, or dk and db
  if constexpr (kRows) {  // a row's pairs (i in S, m <= i), over the steps J <= S
    for (int J = 0; J <= S; ++J) {
      const float* f = s.factor() + step_pair(S, J) * kKeySlice;
      const auto kr = [&](int m, int c) { return s.kr()[m * kKeyRow + c] * f[c]; };
      const auto br = [&](int m, int c) { return s.br()[m * kKeyRow + c] * f[c]; };
      dA.template add_rows<Op>(x, kQk, kAk, s0, J * kCheckpointTokens, n0, kr);
      dA.template add_rows<Op>(x, kQb, kAb, s0, J * kCheckpointTokens, n0, br);
    }
  } else {  // a column's pairs (m in S, i > m), over the steps I >= S
    for (int I = S; I < steps; ++I) {
      const float* f = s.factor() + step_pair(I, S) * kKeySlice;
      const auto ql = [&](int i, int c) { return s.ql()[i * kKeyRow + c] * f[c]; };
      const auto al = [&](int i, int c) { return s.al()[i * kKeyRow + c] * f[c]; };
      dA.template add_columns<Op>(x, kQk, kQb, s0, I * kCheckpointTokens, n0, ql);
      dA.template add_columns<Op>(x, kAk, kAb, s0, I * kCheckpointTokens, n0, al);
    }
  }
#pragma unroll
  for (int g = 0; g < 2; ++g) {
    float* to = s.sums(kRows ? (g == 0 ? Grad::q : Grad::a) : (g == 0 ? Grad::k : Grad::b));
    chunk::for_each_accumulator(x[g], 1, s0, n0,
                                [&](int i, int cl, float& v) { to[i * kKeySlice + cl] = v; });
  }
}
template <class Op, class Pairs>
__device__ __forceinline__ void channel_tensor_sums(const ChannelSlice& s, const Pairs& dA, int C) {
  const int steps = C / kCheckpointTokens;
  for (int job = threadIdx.x / 32; job < 4 * steps; job += kThreads / 32) {
    const int S = job % steps;
    if constexpr (std::is_same_v<Pairs, PairGrads>) {
      switch (job / steps) {
        case 0:
          channel_tensor_job<Op, Grad::q>(s, dA, steps, S);
          break;
        case 1:
          channel_tensor_job<Op, Grad::a>(s, dA, steps, S);
          break;
        case 2:
          channel_tensor_job<Op, Grad::k>(s, dA, steps, S);
          break;
        default:
          channel_tensor_job<Op, Grad::b>(s, dA, steps, S);
      }
    } else {
      const int tile = job / steps % 2;  // the rows' jobs first, then the columns'
      if (job < 2 * steps)
        channel_tile_job<Op, true>(s, dA, steps, S, tile);
      else
        channel_tile_job<Op, false>(s, dA, steps, S, tile);
    }
  }
}

// The slice's dq, da, dk, db (emit(Grad, i, c, value), i < L) from the tensor cores' sums, with the state's
// terms, a steep channel's diagonal pairs one by one, and the pairs of factor 1; and dw's terms: a thread per
// (row or column, channel).
template <class Pairs, class Emit>
__device__ __forceinline__ void channel_grads(const ChannelSlice& s, const StagedTerms& t, const Pairs& dA,
                                              int C, int L, int c0, float scale, const Emit& emit) {
  const int steps = C / kCheckpointTokens;
  for (int e = threadIdx.x; e < 2 * C * kKeySlice; e += kThreads) {
    const bool row = e < C * kKeySlice;
    const int at = e % (C * kKeySlice), i = at / kKeySlice, cl = at % kKeySlice, c = c0 + cl;
    const int S = i / kCheckpointTokens, s0 = S * kCheckpointTokens;
    const bool steep = !gentle(s.totals()[S * kKeySlice + cl]);
    if (row) {  // dq_i, da_i
      const float2 lr_i = s.lr()[at], lew_i = s.lew()[at], kb_i = s.kb()[at], qa_i = s.qa()[at];
      const float start = steps_total(s.totals(), kKeySlice, 0, S, cl);
      float dq = fmaf(t.qs(i, cl), exp2_flushed(lr_i.x + start), exp2_flushed(lr_i.x) * s.sums(Grad::q)[at]);
      float da =
          fmaf(t.xdw(i, cl), exp2_flushed(lew_i.x + start), exp2_flushed(lew_i.x) * s.sums(Grad::a)[at]);
      if (steep)
        for (int m = s0; m < i; ++m) {
          const float2 kb_m = s.kb()[m * kKeySlice + cl];
          const float ee = exp2_flushed(lew_i.x - s.lr()[m * kKeySlice + cl].x);
          dq = fmaf(fmaf(dA.at(kQk, i, m), kb_m.x, dA.at(kQb, i, m) * kb_m.y), ee * lew_i.y, dq);
          if (m < i - 1) da = fmaf(fmaf(dA.at(kAk, i, m), kb_m.x, dA.at(kAb, i, m) * kb_m.y), ee, da);
        }
      float neighbour = 0;  // the pair (i, i - 1), factor 1
      if (i > 0) {
        const float2 kb_n = s.kb()[at - kKeySlice];
        neighbour = fmaf(dA.fixed(kAk, i), kb_n.x, dA.fixed(kAb, i) * kb_n.y);
      }
      s.grow()[at] = qa_i.x * dq;
      s.gexcl()[at] = qa_i.y * da;
      if (i < L) {
        emit(Grad::q, i, c, scale * (dq + fmaf(dA.fixed(kQk, i), kb_i.x, dA.fixed(kQb, i) * kb_i.y)));
        emit(Grad::a, i, c, da + neighbour);
      }
    } else {  // dk_m, db_m with m = i
      const int m = i;
      const float2 lr_m = s.lr()[at], kb_m = s.kb()[at];
      const float q_m = s.qa()[at].x, ksm = t.ks(i, cl), bsm = t.bs(i, cl);
      // the pairs of factor 1 (m, m) and (m + 1, m), and at the sequence's last token the state's term
      float dk = 0, db = 0, dk_fixed = dA.fixed(kQk, m) * q_m, db_fixed = dA.fixed(kQb, m) * q_m;
      if (m + 1 < C) {
        const float a_next = s.qa()[at + kKeySlice].y;
        dk_fixed = fmaf(dA.fixed(kAk, m + 1), a_next, dk_fixed);
        db_fixed = fmaf(dA.fixed(kAb, m + 1), a_next, db_fixed);
      }
      if (m == L - 1) {
        dk_fixed += ksm, db_fixed += bsm;
        s.gend()[at] = 0;
      } else {
        const float to_end = exp2_flushed(lr_m.y + steps_total(s.totals(), kKeySlice, S + 1, steps, cl));
        dk = ksm * to_end, db = bsm * to_end;
        s.gend()[at] = fmaf(kb_m.x, dk, kb_m.y * db);
      }
      const float to_step_end = exp2_flushed(lr_m.y);
      dk = fmaf(to_step_end, s.sums(Grad::k)[at], dk), db = fmaf(to_step_end, s.sums(Grad::b)[at], db);
      if (steep)
        for (int r = m + 1; r < s0 + kCheckpointTokens; ++r) {
          const float2 lew_r = s.lew()[r * kKeySlice + cl], qa_r = s.qa()[r * kKeySlice + cl];
          const float ee = exp2_flushed(lew_r.x - lr_m.x), qe = qa_r.x * ee * lew_r.y;
          dk = fmaf(dA.at(kQk, r, m), qe, dk), db = fmaf(dA.at(kQb, r, m), qe, db);
          if (r > m + 1)
            dk = fmaf(dA.at(kAk, r, m), qa_r.y * ee, dk), db = fmaf(dA.at(kAb, r, m), qa_r.y * ee, db);
        }
      s.gcol()[at] = -fmaf(kb_m.x, dk, kb_m.y * db);
      if (m < L) {
        emit(Grad::k, m, c, dk + dk_fixed);
        emit(Grad::b, m, c, db + db_fixed);
      }
    }
  }
}

// dw of the slice's channels from the terms channel_grads left: dw_m sums the row terms of every token i >= m
// (their Γ_i holds w_m), the exclusive ones of i > m, the column terms of i >= m, and the state's and chunk
// end's terms (e^{Γ_L} holds every w). The chunk's tokens in kDwPieces pieces: each piece's sums, then each
// piece walks its tokens back from the sums of the pieces after it.
constexpr int kDwPieces = kThreads / kKeySlice;
static_assert(kCheckpointTokens % kDwPieces == 0, "every chunk size splits into the pieces");
static_assert(kDwPieces <= 32 && (kDwPieces & (kDwPieces - 1)) == 0,
              "a channel's pieces in one warp's shuffles");
// A piece's sums, padded: the scan's lanes (a piece each) read distinct banks.
constexpr int kDwRow = kKeySlice + 1;
static_assert(3 * kDwPieces * kDwRow <= 4 * kCheckpointTokens * kKeySlice, "in the tensor sums' room");
template <class Emit>
__device__ __forceinline__ void channel_dw(const ChannelSlice& s, const StagedTerms& t, int C, int L, int c0,
                                           const Emit& emit) {
  const int steps = C / kCheckpointTokens, cl = threadIdx.x % kKeySlice, piece = threadIdx.x / kKeySlice;
  const int per_piece = C / kDwPieces, first = piece * per_piece;
  // [kind][piece][kDwRow]: row and column terms, exclusive terms, chunk end
  float* sums = s.piece_sums();
  const auto sum = [&](int kind, int of, int channel) -> float& {
    return sums[(kind * kDwPieces + of) * kDwRow + channel];
  };
  {
    float both = 0, exclusive = 0, end = 0;
    for (int m = first; m < first + per_piece; ++m) {
      const int at = m * kKeySlice + cl;
      both += s.grow()[at] + s.gcol()[at], exclusive += s.gexcl()[at], end += s.gend()[at];
    }
    sum(0, piece, cl) = both, sum(1, piece, cl) = exclusive, sum(2, piece, cl) = end;
  }
  __syncthreads();
  {
    // A channel's pieces in one group of kDwPieces lanes (a lane a piece): each piece's row and column and
    // exclusive terms summed over the pieces after it, and the chunk end's over all, by shuffles (v61: each
    // thread had read all the pieces' sums from shared memory, most of dw's 12-14% of the kernel's
    // instructions in stop 66's ncu).
    const int channel = threadIdx.x / kDwPieces, lane_piece = threadIdx.x % kDwPieces;
#pragma unroll
    for (int kind = 0; kind < 3; ++kind) {
      float x = sum(kind, lane_piece, channel);
#pragma unroll
      for (int d = 1; d < kDwPieces; d *= 2) {
        const float y = __shfl_down_sync(0xffffffffu, x, d, kDwPieces);
        if (lane_piece + d < kDwPieces) x += y;
      }
      const float after = __shfl_down_sync(0xffffffffu, x, 1, kDwPieces);
      sum(kind, lane_piece, channel) = kind == 2 ? __shfl_sync(0xffffffffu, x, 0, kDwPieces)
                                       : lane_piece + 1 < kDwPieces ? after
                                                                    : 0.0f;
    }
  }
  __syncthreads();
  float inclusive = sum(0, piece, cl), exclusive = sum(1, piece, cl);
  const float end = fmaf(t.state_dot(cl), exp2_flushed(steps_total(s.totals(), kKeySlice, 0, steps, cl)),
                         sum(2, piece, cl));
  for (int m = first + per_piece - 1; m >= first; --m) {
    const int at = m * kKeySlice + cl;
    inclusive += s.grow()[at] + s.gcol()[at];
    if (m < L) emit(Grad::w, m, c0 + cl, inclusive + exclusive + end);
    exclusive += s.gexcl()[at];
  }
}

// A block per chunk of the range in x, (batch, head) in y, its slices of kKeySlice channels one after another
// (a block a slice fetched the chunk's pair gradients and decoded its item once a slice, and waited for its
// copies: a quarter of the kernel's instructions at K = 64, kernels/notes/rwkv7_chunk.md, v42); the chunk
// size a compile-time constant (its index arithmetic was a fifth of the first version's instructions). A
// slice's raw inputs and terms share one stage each: the next slice's inputs are copied once this one's
// operands are made, its terms once this one's gradients are out, each landing during the other half of a
// slice. Three blocks an SM where shared memory holds them (C <= 32), as the block a slice had at 72
// registers; the slice loop's live values would otherwise take 128.
template <class T, int C>
__global__ void __launch_bounds__(kThreads, C <= 32 ? 3 : 2)
    rwkv7_chunk_channel_grads_kernel(Pointers<T> p, GradPointers<T> g, ChunkDims d, ChunkRange range,
                                     BackwardRegions regions) {
  // 16-bit inputs on the tensor cores as two-part operands, fp32 in 3xTF32 (chunk_products.cuh)
  using Op = std::conditional_t<sizeof(T) == 2, __nv_bfloat16, float>;
  extern __shared__ __align__(16) float smem[];
  const int K = d.K, slices = K / kKeySlice, n = range.first + blockIdx.x, bh = blockIdx.y;
  const int b = bh / d.H, h = bh % d.H, t0 = n * C, L = min(C, d.T - t0);
  const std::int64_t block = std::int64_t(bh) * d.chunks + n;
  float* staged = smem + pair_room_floats(C, sizeof(T));
  T* raw = reinterpret_cast<T*>(staged + staged_terms_floats(C));
  const ChannelSlice slice{staged + staged_terms_floats(C) + staged_inputs_floats(C, sizeof(T)), C};
  // fp32's pair gradients as they are, 16-bit inputs' as planes
  using Pairs = std::conditional_t<sizeof(T) == 2, PairPlanes<C>, PairGrads>;
  const Pairs pairs = [&] {
    if constexpr (sizeof(T) == 2)
      return Pairs{reinterpret_cast<__nv_bfloat16*>(smem)};
    else
      return Pairs{smem, C + 4, C * (C + 4)};
  }();
  const StagedTerms terms{staged, C};
  const auto input = [&](ChannelInput x, int i, int cl) {
    return to_float(raw[(x * C + i) * kKeySlice + cl]);
  };
  const float* terms_from = regions.terms + block * ChannelTerms(C, K).floats;
  const std::int64_t first = token_row(d, b, t0, h) * K, token_stride = std::int64_t(d.H) * K;
  const auto emit = [&](Grad grad, int i, int c, float x) {
    T* to = grad == Grad::q   ? g.dq
            : grad == Grad::a ? g.da
            : grad == Grad::k ? g.dk
            : grad == Grad::b ? g.db
                              : g.dg;
    to[first + i * token_stride + c] = from_float<T>(x);
  };

  const float* pairs_from = regions.pairs + block * kPairs * C * C;
  if constexpr (sizeof(T) == 4) fetch_pair_grads<C>(smem, pairs_from);
  fetch_slice_terms<C>(staged, terms_from, K, 0);
  fetch_slice_inputs<T, C>(raw, p, first, token_stride, L, 0);
  cp_async_commit();
  if constexpr (sizeof(T) == 2)
    pairs.template make<kThreads>(pairs_from, threadIdx.x);  // while the copies land
  // Each slice commits two groups, possibly empty: the next slice's inputs, then its terms.
  for (int at = 0; at < slices; ++at) {
    const int c0 = at * kKeySlice;
    if (at == 0)
      cp_async_wait<0>();
    else
      cp_async_wait<1>();  // this slice's inputs (its terms may still be on their way)
    __syncthreads();
    // (w log2(e) as the local gradients' log2_decay rounds it: here the product also makes e^w, so it is not
    // contracted into the sum; log2_decay itself changes this kernel's code, not yet run on a device)
    stage_decays(slice, C, [&](int i, int cl) { return input(kInW, i, cl) * kLog2e; });
    __syncthreads();
    stage_channel_operands(slice, C, [&](int i, int cl) {
      return make_float4(input(kInK, i, cl), input(kInB, i, cl), d.scale * input(kInQ, i, cl),
                         input(kInA, i, cl));
    });
    __syncthreads();  // the raw inputs are read
    if (at + 1 < slices) fetch_slice_inputs<T, C>(raw, p, first, token_stride, L, c0 + kKeySlice);
    cp_async_commit();
    channel_tensor_sums<Op>(slice, pairs, C);
    cp_async_wait<1>();  // this slice's terms
    __syncthreads();
    channel_grads(slice, terms, pairs, C, L, c0, d.scale, emit);
    __syncthreads();
    channel_dw(slice, terms, C, L, c0, emit);
    __syncthreads();  // the terms are read, the slice's room free
    if (at + 1 < slices) fetch_slice_terms<C>(staged, terms_from, K, c0 + kKeySlice);
    cp_async_commit();
  }
}

}  // namespace flabench::rwkv7
