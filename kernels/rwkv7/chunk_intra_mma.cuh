// rwkv7 chunk, step 1 on the tensor cores, for 16-bit inputs: what chunk_intra.cuh computes (A_qk, A_qb,
// X = (I - A_ab)^{-1}, U = X A_ak v, W = X (a e^{Γe}), the state pass's factors and the output pass's
// q e^{Γ}), with every product an mma.sync of fp32 operands in two bf16 parts (~16 bits each, what the state
// and output passes keep).
//
// The pair sums factor through the chunk's 16-token sub-chunks (the form gla's chunk uses,
// kernels/common/chunk/intra_chunk.cuh): with l the inclusive sum of log decays within a sub-chunk, le the
// exclusive one and r = total - l what follows a token in it,
//   rows     q_i e^{l_i} (qs) and a_i e^{le_i} (as), both <= |input|;
//   columns  k_j e^{r_j} and b_j e^{r_j} for the sub-chunk just before the rows' (k~ and b~, which the state
//            pass reads too), times e^{the totals between} for farther ones;
//   diagonal k_j e^{-l_j} and b_j e^{-l_j}, below e^40 for a gentle channel (its sub-chunk's total >= -40);
//            a steep channel's diagonal terms are summed pair by pair in fp32 instead, every exponent a sum
//            of log decays in token order (<= 0), so any w < 0 stays exact.
// Each product term is then e^{Γ_i - Γ_j} (or e^{Γe_i - Γ_j}) to its operands' rounding.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_intra_plan.h"
#include "kernels/rwkv7/chunk_inverse.cuh"
#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

// Shared memory, in order: a e^{Γe} for the whole chunk (written slice by slice, read by W at the end), then
// one region used twice. Per slice of keys: raw_buffers(C) buffers of the raw inputs,
// [kInputs][C][kOperandRow] each; l as fp32 [C][kStagedRow]; the sub-chunks' totals
// [C / 16][16]; the operands as bf16 planes (high, then low) of kOperandRow a token: qs, as, k~, b~, the
// diagonal columns, the far pairs' columns [far_pairs][16 tokens]. After the slices: A_ak, A_ab, A_qk, A_qb
// as fp32 [C][C + 1]; X replaces A_qk once that is written out, the inverse's scratch A_qb.
template <class T>
struct IntraMmaShared {
  float* ag;
  T* raw;
  float *l, *total;
  __nv_bfloat16 *qs, *as, *kt, *bt, *kd, *bd, *kf, *bf;
  float *ak, *ab, *x, *partial;
  int C, plane, far_plane;  // elements from an operand's high plane to its low one
  __device__ IntraMmaShared(float* s, int C_, int K) : C(C_) {
    ag = s;
    raw = reinterpret_cast<T*>(ag + C * ag_row(K));
    l = reinterpret_cast<float*>(raw + raw_buffers(C) * kInputs * C * kOperandRow);
    total = l + C * kStagedRow;
    plane = C * kOperandRow, far_plane = 16 * far_pairs(C) * kOperandRow;
    qs = reinterpret_cast<__nv_bfloat16*>(total + (C / 16) * kMmaSliceKeys);
    as = qs + 2 * plane, kt = as + 2 * plane, bt = kt + 2 * plane, kd = bt + 2 * plane, bd = kd + 2 * plane;
    kf = bd + 2 * plane, bf = kf + 2 * far_plane;
    const int square = C * (C + 1);
    ak = reinterpret_cast<float*>(raw), ab = ak + square, x = ab + square, partial = x + square;
  }
  // Input `input`'s row of token t in slice buffer `buffer`.
  __device__ T* input(int buffer, int input, int t) const {
    return raw + ((buffer * kInputs + input) * C + t) * kOperandRow;
  }
};

// Issues the copies of the slice of keys [c0, c0 + 16) into `buffer` (two 16-byte pieces a token and input),
// zeroing the rows past the sequence's end.
template <class T, int C>
__device__ void fetch_slice(const IntraMmaShared<T>& s, int buffer, const Pointers<T>& p, const ChunkDims& d,
                            int b, int h, int t0, int L, int c0) {
  const auto from = [&](int input) {
    return input == kQ ? p.q : input == kK ? p.k : input == kA ? p.a : input == kB ? p.b : p.g;
  };
  for (int e = threadIdx.x; e < kInputs * C * 2; e += kThreads) {
    const int input = e / (2 * C), t = e / 2 % C, half = e % 2;
    T* to = s.input(buffer, input, t) + 8 * half;
    if (t < L)
      cp_async(to, from(input) + token_row(d, b, t0 + t, h) * d.K + c0 + 8 * half, 16);
    else
      *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
  }
  cp_async_commit();
}

// Two neighbouring keys of a staged input as fp32.
template <class T>
__device__ __forceinline__ float2 input_pair(const T* at) {
  return make_float2(to_float(at[0]), to_float(at[1]));
}

// The slice's operands (the file's comment) into their planes, k~ (where kg is given) and b~ into the state
// pass's regions, each sub-chunk's decay: an item per (sub-chunk, pair of keys, token), a sub-chunk's 16
// tokens on 16 neighbouring lanes, which sum the log decays down the sub-chunk by shuffles (l into s.l, the
// totals into s.total). Returns whether any channel of the slice is steep in its sub-chunk (the caller
// synchronises).
template <class T, int C>
__device__ bool make_operands(const IntraMmaShared<T>& s, int buffer, const ChunkDims& d, int c0, float* kg,
                              float* bg, float* decay, float* bg_fp32) {
  bool steep = false;
  for (int item = threadIdx.x; item < C * kMmaSliceKeys / 2; item += kThreads) {
    const int tt = item % 16, c = 2 * (item / 16 % (kMmaSliceKeys / 2)), I = item / (8 * 16), t = 16 * I + tt;
    float2 w = input_pair(s.input(buffer, kW, t) + c);
    float l[2] = {w.x * kLog2e, w.y * kLog2e};
    const float step[2] = {l[0], l[1]};
#pragma unroll
    for (int shift = 1; shift < 16; shift *= 2)
#pragma unroll
      for (int x = 0; x < 2; ++x) {
        const float before = __shfl_up_sync(0xffffffffu, l[x], shift, 16);
        if (tt >= shift) l[x] += before;
      }
    float total[2];
#pragma unroll
    for (int x = 0; x < 2; ++x) {
      total[x] = __shfl_sync(0xffffffffu, l[x], 15, 16);
      s.l[t * kStagedRow + c + x] = l[x];
      steep |= !gentle(total[x]);
    }
    if (tt == 15) {
      s.total[I * kMmaSliceKeys + c] = total[0], s.total[I * kMmaSliceKeys + c + 1] = total[1];
      decay[I * d.K + c0 + c] = exp2_flushed(total[0]), decay[I * d.K + c0 + c + 1] = exp2_flushed(total[1]);
    }
    const float2 q = input_pair(s.input(buffer, kQ, t) + c), k = input_pair(s.input(buffer, kK, t) + c),
                 a = input_pair(s.input(buffer, kA, t) + c), b = input_pair(s.input(buffer, kB, t) + c);
    const float qi[2] = {q.x * d.scale, q.y * d.scale}, ki[2] = {k.x, k.y}, ai[2] = {a.x, a.y},
                bi[2] = {b.x, b.y};
    float qs[2], as[2], kt[2], bt[2], kd[2], bd[2];
#pragma unroll
    for (int x = 0; x < 2; ++x) {
      const float to_end = exp2_flushed(total[x] - l[x]);
      const float from_start = gentle(total[x]) ? exp2_flushed(-l[x]) : 0.0f;
      qs[x] = qi[x] * exp2_flushed(l[x]), as[x] = ai[x] * exp2_flushed(l[x] - step[x]);
      kt[x] = ki[x] * to_end, bt[x] = bi[x] * to_end;
      kd[x] = ki[x] * from_start, bd[x] = bi[x] * from_start;
    }
    const int row = t * kOperandRow + c;
    store_part_pairs(s.qs + row, s.plane, qs[0], qs[1]);
    store_part_pairs(s.as + row, s.plane, as[0], as[1]);
    store_part_pairs(s.kt + row, s.plane, kt[0], kt[1]);
    store_part_pairs(s.bt + row, s.plane, bt[0], bt[1]);
    store_part_pairs(s.kd + row, s.plane, kd[0], kd[1]);
    store_part_pairs(s.bd + row, s.plane, bd[0], bd[1]);
    if (kg) store_operand_pair<T>(kg, C, d.K, t, c0 + c, kt[0], kt[1]);
    store_operand_pair<T>(bg, C, d.K, t, c0 + c, bt[0], bt[1]);
    if (bg_fp32) *reinterpret_cast<float2*>(bg_fp32 + t * d.K + c0 + c) = make_float2(bt[0], bt[1]);
  }
  return steep;
}

// Both below need every sub-chunk's total (make_operands', synchronised since); an item per token and key.
// The far pairs' columns: k~ and b~ times the decay of the sub-chunks between them and a farther row
// sub-chunk (each factor <= 1), into the far planes (C = 64 only).
template <class T, int C>
__device__ void make_far_columns(const IntraMmaShared<T>& s, int buffer) {
  constexpr int subs = C / 16;
  for (int e = threadIdx.x; e < C * kMmaSliceKeys; e += kThreads) {
    const int t = e / kMmaSliceKeys, c = e % kMmaSliceKeys, I = t / 16;
    const float l = s.l[t * kStagedRow + c];
    const float total = s.total[I * kMmaSliceKeys + c], to_end = exp2_flushed(total - l);
    const float k = to_float(s.input(buffer, kK, t)[c]) * to_end,
                b = to_float(s.input(buffer, kB, t)[c]) * to_end;
    float between = 1.0f;
    for (int R = I + 2; R < subs; ++R) {
      between *= exp2_flushed(s.total[(R - 1) * kMmaSliceKeys + c]);
      const int far = (chunk::far_pair_index(R, I) * 16 + t % 16) * kOperandRow + c;
      store_parts(s.kf + far, s.far_plane, k * between);
      store_parts(s.bf + far, s.far_plane, b * between);
    }
  }
}

// The rows scaled from the chunk's start: a e^{Γe} into s.ag (W's operand) and the output pass's q e^{Γ}
// into qg (store_operand_pair: planes for bf16), and into qg_fp32 where given; an item per token and pair of
// keys, so that each plane takes one 32-bit store a pair.
template <class T, int C>
__device__ void make_chunk_rows(const IntraMmaShared<T>& s, int buffer, const ChunkDims& d, int c0, float* qg,
                                float* qg_fp32) {
  constexpr int kPairs = kMmaSliceKeys / 2;
  for (int e = threadIdx.x; e < C * kPairs; e += kThreads) {
    const int t = e / kPairs, c = 2 * (e % kPairs), I = t / 16;
    float ag[2], x[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const float l = s.l[t * kStagedRow + c + j];
      float before = 0;  // the sub-chunks before t's
      for (int J = 0; J < I; ++J) before += s.total[J * kMmaSliceKeys + c + j];
      const float w = to_float(s.input(buffer, kW, t)[c + j]) * kLog2e;
      ag[j] = to_float(s.input(buffer, kA, t)[c + j]) * exp2_flushed(before + l - w);
      x[j] = d.scale * to_float(s.input(buffer, kQ, t)[c + j]) * exp2_flushed(before + l);
    }
    *reinterpret_cast<float2*>(s.ag + t * ag_row(d.K) + c0 + c) = make_float2(ag[0], ag[1]);
    store_operand_pair<T>(qg, C, d.K, t, c0 + c, x[0], x[1]);
    if (qg_fp32) *reinterpret_cast<float2*>(qg_fp32 + t * d.K + c0 + c) = make_float2(x[0], x[1]);
  }
}

// The pair sums' jobs: product p (0 A_qk, 1 A_qb, 2 A_ak, 3 A_ab) of sub-chunk pair (I, J <= I), a 16 x 16
// block as two 16 x 8 tiles.
struct PairJob {
  int product, I, J;
  __device__ explicit PairJob(int job) : product(job % 4) { chunk::lower_pair(job / 4, I, J); }
};

// acc += the slice's share of a job's block, both operands in two parts (three products a tile).
template <class T>
__device__ __forceinline__ void pair_job_products(const IntraMmaShared<T>& s, const PairJob& job,
                                                  float (&acc)[2][4]) {
  using Op = __nv_bfloat16;
  const Op* row = job.product < 2 ? s.qs : s.as;
  const bool keys = job.product % 2 == 0;
  const Op* column;
  int plane = s.plane, n0;
  if (job.J == job.I) {
    column = keys ? s.kd : s.bd, n0 = 16 * job.I;
  } else if (job.J == job.I - 1) {
    column = keys ? s.kt : s.bt, n0 = 16 * job.J;
  } else {
    column = keys ? s.kf : s.bf, n0 = 16 * chunk::far_pair_index(job.I, job.J), plane = s.far_plane;
  }
  std::uint32_t af[2][4];
  chunk::a_stored_mk<Op>(af[0], row, kOperandRow, 16 * job.I, 0);
  chunk::a_stored_mk<Op>(af[1], row + s.plane, kOperandRow, 16 * job.I, 0);
  chunk::mma_b_stored_nk<Op>(acc, 0, 2, af, column, kOperandRow, 0, n0);
  chunk::mma_b_stored_nk<Op>(acc, 2, af[0], column + plane, kOperandRow, 0, n0);
}

// The steep channels' terms of the diagonal blocks, pair by pair: this thread's pair (16 I + ti, 16 I + tj)
// of each sub-chunk I, sums[I] = {A_qk, A_qb, A_ak, A_ab}.
template <class T, int C>
__device__ void add_steep_pairs(const IntraMmaShared<T>& s, int buffer, float scale,
                                float (&sums)[C / 16][4]) {
  const int ti = threadIdx.x / 16, tj = threadIdx.x % 16;
  if (tj > ti) return;
  const auto input = [&](int which, int t, int c) { return to_float(s.input(buffer, which, t)[c]); };
#pragma unroll
  for (int I = 0; I < C / 16; ++I) {
    const int i = 16 * I + ti, j = 16 * I + tj;
    for (int c = 0; c < kMmaSliceKeys; ++c) {
      if (gentle(s.total[I * kMmaSliceKeys + c])) continue;
      const float li = s.l[i * kStagedRow + c], lj = s.l[j * kStagedRow + c];
      const float kj = input(kK, j, c), bj = input(kB, j, c);
      const float qe = scale * input(kQ, i, c) * exp2_flushed(li - lj);  // Γ_i - Γ_j <= 0
      sums[I][0] = fmaf(qe, kj, sums[I][0]), sums[I][1] = fmaf(qe, bj, sums[I][1]);
      if (tj < ti) {  // Γe_i - Γ_j <= 0
        const float ae = input(kA, i, c) * exp2_flushed(li - input(kW, i, c) * kLog2e - lj);
        sums[I][2] = fmaf(ae, kj, sums[I][2]), sums[I][3] = fmaf(ae, bj, sums[I][3]);
      }
    }
  }
}

// out[M-tile rows][N-tile columns] = left right over k < the tile row's end (left lower triangular), for
// every 16 x 16 block of a rows x cols product, the blocks shared out over the warps; both operands fp32 from
// functions, in two bf16 parts each. store(row, col, x0, x1) takes two neighbours.
template <class Left, class Right, class Store>
__device__ void lower_times(int rows, int cols, const Left& left, const Right& right, const Store& store) {
  const int blocks_n = cols / 16;
  for (int job = threadIdx.x / 32; job < (rows / 16) * blocks_n; job += kThreads / 32) {
    const int m0 = job / blocks_n * 16, n0 = job % blocks_n * 16;
    float acc[2][4] = {};
    for (int k0 = 0; k0 <= m0; k0 += 16)
      chunk::mma_k16<__nv_bfloat16, 2, chunk::Exact::both>(acc, 2, m0, n0, k0, left, right);
    chunk::for_each_pair(acc, 2, m0, n0, store);
  }
}

// lower_times with the left operand stored as two bf16 planes [rows][ld] (`plane` elements from high to
// low), its fragments read whole by ldmatrix; product(acc, af, k0, n0) adds the right operand's share.
template <class Product, class Store>
__device__ void lower_times_planes(int rows, int cols, const __nv_bfloat16* left, int plane, int ld,
                                   const Product& product, const Store& store) {
  const int blocks_n = cols / 16;
  for (int job = threadIdx.x / 32; job < (rows / 16) * blocks_n; job += kThreads / 32) {
    const int m0 = job / blocks_n * 16, n0 = job % blocks_n * 16;
    float acc[2][4] = {};
    for (int k0 = 0; k0 <= m0; k0 += 16) {
      std::uint32_t af[2][4];
      chunk::a_stored_mk<__nv_bfloat16>(af[0], left, ld, m0, k0);
      chunk::a_stored_mk<__nv_bfloat16>(af[1], left + plane, ld, m0, k0);
      product(acc, af, k0, n0);
    }
    chunk::for_each_pair(acc, 2, m0, n0, store);
  }
}

// The tail after the inverse (X in s.x): X A_ak and U = (X A_ak) v where U is asked for, and W =
// X (a e^{Γe}), each right operand
// split in two parts as it is read (v too for fp16; bf16's v is exact and read from `vs` by ldmatrix), every
// product the tensor cores' as lower_times does them, in the same order. X and X A_ak as planes in the
// slices' free room (tail_planes), written once rather than split by every job.
template <class T, int C>
__device__ void tail_on_planes(const IntraMmaShared<T>& s, const __nv_bfloat16* vs, const Pointers<T>& p,
                               const ChunkDims& d, const IntraOutputs& out, std::int64_t block, int b, int h,
                               int t0, int L) {
  using Op = __nv_bfloat16;
  using chunk::Exact;
  constexpr int ldc = C + 1, XP = padded_row(C, 2), plane = C * XP;
  Op* xp = reinterpret_cast<Op*>(reinterpret_cast<char*>(s.ak) + intra_pair_bytes(C));  // X [2][C][XP]
  Op* yp = xp + 2 * plane;                                                              // X A_ak [2][C][XP]
  for (int e = 2 * threadIdx.x; e < C * C; e += 2 * kThreads) {
    const int i = e / C, j = e % C;
    store_part_pairs(xp + i * XP + j, plane, s.x[i * ldc + j], s.x[i * ldc + j + 1]);
  }
  __syncthreads();
  const auto split_right = [](const auto& right) {
    return [=](float(&acc)[2][4], const std::uint32_t(&af)[2][4], int k0, int n0) {
      chunk::mma_b_split<Op, 2, Exact::both>(acc, 2, af[0], af[1], k0, n0, right);
    };
  };
  if (out.u) {
    lower_times_planes(
        C, C, xp, plane, XP, split_right([&](int m, int j) { return s.ak[m * ldc + j]; }),
        [&](int i, int j, float x0, float x1) { store_part_pairs(yp + i * XP + j, plane, x0, x1); });
    cp_async_wait<0>();  // v (bf16)
    __syncthreads();
    float* u_block = out.u + block * C * d.V;
    const auto store_u = [&](int i, int j, float x0, float x1) {
      *reinterpret_cast<float2*>(u_block + i * d.V + j) = make_float2(x0, x1);
    };
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      lower_times_planes(
          C, d.V, yp, plane, XP,
          [&](float(&acc)[2][4], const std::uint32_t(&af)[2][4], int k0, int n0) {
            chunk::mma_b_stored_kn<Op, 2, 2>(acc, 2, af, vs, padded_row(d.V, 2), k0, n0);
          },
          store_u);
    } else {  // fp16's v in two bf16 parts, read where it is (zero past the sequence's end)
      const T* v = p.v + token_row(d, b, t0, h) * d.V;
      const std::int64_t v_stride = std::int64_t(d.H) * d.V;
      lower_times_planes(
          C, d.V, yp, plane, XP,
          split_right([&](int m, int j) { return m < L ? to_float(v[m * v_stride + j]) : 0.0f; }), store_u);
    }
  }
  float* w_block = out.w + block * C * d.K;
  lower_times_planes(
      C, d.K, xp, plane, XP, split_right([&](int m, int j) { return s.ag[m * ag_row(d.K) + j]; }),
      [&](int i, int j, float x0, float x1) {
        store_operand_pair<T>(w_block, C, d.K, i, j, x0, x1);
        if (out.w_fp32)
          *reinterpret_cast<float2*>(out.w_fp32 + block * C * d.K + i * d.K + j) = make_float2(x0, x1);
      });
}

// One block per (chunk of the range, batch * head); writes what rwkv7_chunk_intra_kernel writes
// (IntraOutputs).
template <class T, int C>
__global__ void __launch_bounds__(kThreads, intra_mma_blocks_per_sm(C))
    rwkv7_chunk_intra_mma_kernel(Pointers<T> p, ChunkDims d, ChunkRange range, IntraOutputs out) {
  static_assert(C % 16 == 0 && C <= kMaxChunk);
  constexpr int subs = C / 16, jobs = 4 * subs * (subs + 1) / 2, warps = kThreads / 32;
  constexpr int kJobs = (jobs + warps - 1) / warps;  // a warp's jobs, the same in every slice
  extern __shared__ float smem[];
  const IntraMmaShared<T> s(smem, C, d.K);
  const int n = range.first + blockIdx.x, bh = blockIdx.y, b = bh / d.H, h = bh % d.H;
  const int t0 = n * C, L = min(C, d.T - t0), warp = threadIdx.x / 32;
  const std::int64_t block = std::int64_t(bh) * d.chunks + n;

  float acc[kJobs][2][4] = {};
  float steep[subs][4] = {};
  const int slices = d.K / kMmaSliceKeys;
  fetch_slice<T, C>(s, 0, p, d, b, h, t0, L, 0);
  for (int slice = 0; slice < slices; ++slice) {
    const int c0 = slice * kMmaSliceKeys, buffer = slice % raw_buffers(C);
    if constexpr (raw_buffers(C) == 1) {
      if (slice > 0) fetch_slice<T, C>(s, 0, p, d, b, h, t0, L, c0);  // the last slice's readers are done
      cp_async_wait<0>();
    } else if (slice + 1 < slices) {  // the next slice's copies go out before this one's are awaited
      fetch_slice<T, C>(s, 1 - buffer, p, d, b, h, t0, L, c0 + kMmaSliceKeys);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const bool any_steep = __syncthreads_or(make_operands<T, C>(
        s, buffer, d, c0, out.kg ? out.kg + block * C * d.K : nullptr, out.bg + block * C * d.K,
        out.decay + block * subs * d.K, out.bg_fp32 ? out.bg_fp32 + block * C * d.K : nullptr));
    if constexpr (subs > 2) {
      make_far_columns<T, C>(s, buffer);
      __syncthreads();
    }
#pragma unroll
    for (int x = 0; x < kJobs; ++x)
      if (warp + warps * x < jobs) pair_job_products(s, PairJob(warp + warps * x), acc[x]);
    if (any_steep) add_steep_pairs<T, C>(s, buffer, d.scale, steep);
    make_chunk_rows<T, C>(s, buffer, d, c0, out.qg + block * C * d.K,
                          out.qg_fp32 ? out.qg_fp32 + block * C * d.K : nullptr);
    __syncthreads();
  }
  // bf16's v for U, into the slices' room past the pair matrices (tail_planes), while the pair sums finish
  __nv_bfloat16* vs = reinterpret_cast<__nv_bfloat16*>(reinterpret_cast<char*>(s.ak) + intra_tail_v_at(C));
  if constexpr (tail_planes(C) && std::is_same_v<T, __nv_bfloat16>) {
    if (out.u) {
      const int VP2 = padded_row(d.V, 2);
      copy_rows<kThreads>(d.V / 8, vs, VP2 * 2, p.v + token_row(d, b, t0, h) * d.V,
                          std::int64_t(d.H) * d.V * 2, L);
      cp_async_commit();
      for (int e = threadIdx.x; e < (C - L) * d.V; e += kThreads)  // rows past the sequence's end
        vs[(L + e / d.V) * VP2 + e % d.V] = __float2bfloat16_rn(0.0f);
    }
  }

  // The four pair matrices into shared memory: the steep sums (or zero) on the diagonal blocks and zero above
  // them, then the tensor cores' sums added or stored, what a row does not read masked out.
  const int ldc = C + 1;
  const auto pair_sums = [&](int m) {  // A_qk, A_qb, A_ak, A_ab
    return m == 0 ? s.x : m == 1 ? s.partial : m == 2 ? s.ak : s.ab;
  };
  {
    const int ti = threadIdx.x / 16, tj = threadIdx.x % 16;
#pragma unroll
    for (int I = 0; I < subs; ++I)
#pragma unroll
      for (int m = 0; m < 4; ++m)
        pair_sums(m)[(16 * I + ti) * ldc + 16 * I + tj] = tj < ti || (tj == ti && m < 2) ? steep[I][m] : 0.0f;
    for (int e = threadIdx.x; e < C * C; e += kThreads)
      if (e % C / 16 > e / C / 16)
        for (int m = 0; m < 4; ++m) pair_sums(m)[e / C * ldc + e % C] = 0;
  }
  __syncthreads();
#pragma unroll
  for (int x = 0; x < kJobs; ++x) {
    if (warp + warps * x >= jobs) continue;
    const PairJob job(warp + warps * x);
    float* sums = pair_sums(job.product);
    chunk::for_each_accumulator(acc[x], 2, 16 * job.I, 16 * job.J, [&](int i, int j, float& v) {
      if (job.I != job.J)
        sums[i * ldc + j] = v;
      else if (j < i || (j == i && job.product < 2))
        sums[i * ldc + j] += v;
    });
  }
  __syncthreads();
  // A_qk and A_qb as the output pass reads them (store_operand_pair: planes for bf16), A_qb in fp32 too where
  // the chunked backward's CUDA-core scan asks for it
  for (int e = 2 * threadIdx.x; e < C * C; e += 2 * kThreads) {
    const int i = e / C, j = e % C;
    const float qk0 = s.x[i * ldc + j], qk1 = s.x[i * ldc + j + 1];
    const float qb0 = s.partial[i * ldc + j], qb1 = s.partial[i * ldc + j + 1];
    store_operand_pair<T>(out.qk + block * C * C, C, C, i, j, qk0, qk1);
    store_operand_pair<T>(out.qb + block * C * C, C, C, i, j, qb0, qb1);
    if (out.qb_fp32) *reinterpret_cast<float2*>(out.qb_fp32 + block * C * C + e) = make_float2(qb0, qb1);
  }
  __syncthreads();
  invert_unit_lower(s.ab, s.x, s.partial, C);
  save_for_backward(out, block, s.x, s.ak, C);
  if constexpr (tail_planes(C)) {
    tail_on_planes<T, C>(s, vs, p, d, out, block, b, h, t0, L);
  } else {  // C = 64: its pair matrices fill the slices' room, so each job splits its operands
    const auto x_rows = [&](int i, int m) { return s.x[i * ldc + m]; };
    if (out.u) {
      // X A_ak into A_ab's place (the inverse was its last reader).
      lower_times(
          C, C, x_rows, [&](int m, int j) { return s.ak[m * ldc + j]; },
          [&](int i, int j, float x0, float x1) { s.ab[i * ldc + j] = x0, s.ab[i * ldc + j + 1] = x1; });
      __syncthreads();
      // U = (X A_ak) v, v read where it is (zero past the sequence's end).
      const T* v = p.v + token_row(d, b, t0, h) * d.V;
      const std::int64_t v_stride = std::int64_t(d.H) * d.V;
      float* u_block = out.u + block * C * d.V;
      lower_times(
          C, d.V, [&](int i, int m) { return s.ab[i * ldc + m]; },
          [&](int m, int j) { return m < L ? to_float(v[m * v_stride + j]) : 0.0f; },
          [&](int i, int j, float x0, float x1) {
            *reinterpret_cast<float2*>(u_block + i * d.V + j) = make_float2(x0, x1);
          });
    }
    // W = X (a e^{Γe}).
    float* w_block = out.w + block * C * d.K;
    lower_times(
        C, d.K, x_rows, [&](int m, int j) { return s.ag[m * ag_row(d.K) + j]; },
        [&](int i, int j, float x0, float x1) {
          store_operand_pair<T>(w_block, C, d.K, i, j, x0, x1);
          if (out.w_fp32)
            *reinterpret_cast<float2*>(out.w_fp32 + block * C * d.K + i * d.K + j) = make_float2(x0, x1);
        });
  }
}

}  // namespace flabench::rwkv7
