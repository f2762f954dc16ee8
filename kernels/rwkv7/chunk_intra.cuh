// rwkv7 chunk, step 1 of the forward on the CUDA cores, for fp32 inputs (16-bit ones take
// chunk_intra_mma.cuh): everything inside one chunk that does not need the state, one block per (chunk,
// head). With Γ the inclusive and Γe the exclusive cumulative log decay down the chunk:
//   A_qk[i][j] = sum_c q_ic k_jc e^{Γ_ic - Γ_jc},  A_qb likewise with b   (j <= i; q = scale * r)
//   A_ak[i][j] = sum_c a_ic k_jc e^{Γe_ic - Γ_jc}, A_ab likewise with b   (j < i)
//   X = (I - A_ab)^{-1},  W = X (a ⊙ e^{Γe}),  U = X A_ak v
// Every exponent is a sum of log decays over tokens in order (Γ_i - Γ_j for j <= i, Γe_i - Γ_j for j < i,
// Γe_i), so it is <= 0 for any w < 0: no factor exceeds 1, whatever the decay. And each is formed from sums
// within 16-token steps (prefix l, suffix r, total T of each step), so no difference of two long sums
// loses the bits of a short one: across steps Γ_i - Γ_j = l_i + T(steps between) + r_j, terms of one sign.
#pragma once

#include <cuda_bf16.h>

#include <type_traits>

#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_inverse.cuh"
#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

constexpr int kSliceKeys = 16;   // keys staged at a time for the pair sums
constexpr int kValueSlice = 32;  // value columns staged at a time for U

// Floats of shared memory step 1 needs at chunk size C.
__host__ __device__ constexpr int intra_shared_floats(int C) {
  return 9 * kSliceKeys * (C + 1)  // q, k, a, b, l, le, r, e^{w} and a e^{Γe} of a slice of keys, key-major
         + 3 * C * (C + 1)         // A_ak, A_ab (then X A_ak), X
         + C * (kValueSlice + 1);  // a slice of v, and scratch for X's off-diagonal blocks
}

struct IntraShared {
  float *q, *k, *a, *b, *ag;  // [kSliceKeys][C + 1]
  // log2 decays within each 16-token step: l inclusive and le exclusive prefix sums, r the sum after a token
  float *l, *le, *r;   // [kSliceKeys][C + 1]
  float* wf;           // e^{w} of each token, [kSliceKeys][C + 1]
  float *ak, *ab, *x;  // [C][C + 1]
  float* v;            // [C][kValueSlice + 1]
  __device__ IntraShared(float* s, int C) {
    const int slice = kSliceKeys * (C + 1), square = C * (C + 1);
    q = s, k = q + slice, a = k + slice, b = a + slice, ag = b + slice;
    l = ag + slice, le = l + slice, r = le + slice, wf = r + slice;
    ak = wf + slice, ab = ak + square, x = ab + square, v = x + square;
  }
};

// Stages keys [c0, c0 + kSliceKeys) of the chunk's a and w: the step sums l, le and r of w in log2 units
// (one thread per key and step sums its 16 tokens in order), each token's e^{w}, and a e^{Γe} with
// Γe_i = (the totals of the steps before i's) + le_i. Where qg is given (q staged), the output pass's
// q e^{Γ} too, [C][K].
template <class T>
__device__ void stage_decays(const IntraShared& s, const Pointers<T>& p, const ChunkDims& d, int b, int h,
                             int t0, int L, int c0, float* qg = nullptr) {
  const int C = d.C, stride = C + 1;
  stage_rows(s.l, 1, stride, p.g, d, d.K, b, h, t0, C, L, c0, kSliceKeys, kLog2e);  // w, until below
  stage_rows(s.a, 1, stride, p.a, d, d.K, b, h, t0, C, L, c0, kSliceKeys);
  __syncthreads();
  for (int e = threadIdx.x; e < kSliceKeys * (C / kCheckpointTokens); e += kThreads) {
    const int c = e % kSliceKeys, first = e / kSliceKeys * kCheckpointTokens;
    float* l = s.l + c * stride + first;
    float sum = 0;
    for (int t = 0; t < kCheckpointTokens; ++t) {
      s.le[c * stride + first + t] = sum;
      s.wf[c * stride + first + t] = exp2_flushed(l[t]);
      sum += l[t];
      l[t] = sum;
    }
    for (int t = 0; t < kCheckpointTokens; ++t) s.r[c * stride + first + t] = sum - l[t];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < C * kSliceKeys; e += kThreads) {
    const int c = e / C, i = e % C, at = c * stride + i;
    float before = s.le[at], inclusive = s.l[at];  // Γe_i and Γ_i: plus the totals of the steps before
    for (int step = 0; step < i / kCheckpointTokens; ++step) {
      const float total = s.l[c * stride + step * kCheckpointTokens + kCheckpointTokens - 1];
      before += total, inclusive += total;
    }
    s.ag[at] = s.a[at] * exp2_flushed(before);
    if (qg) qg[i * d.K + c0 + c] = s.q[at] * exp2_flushed(inclusive);
  }
  __syncthreads();
}

// The state pass's factors for the staged slice of keys (they need no state, so they are made here, off
// its sequential path): k and b with the decay to the end of their 16-token step, and each step's decay.
template <class T>
__device__ void write_step_factors(const IntraShared& s, const ChunkDims& d, std::int64_t block, int c0,
                                   const IntraOutputs& out) {
  const int C = d.C, stride = C + 1;
  float* kg = out.kg ? out.kg + block * C * d.K : nullptr;
  float* bg = out.bg + block * C * d.K;
  for (int e = threadIdx.x; e < C * kSliceKeys; e += kThreads) {
    const int j = e / kSliceKeys, c = e % kSliceKeys;
    const float f = exp2_flushed(s.r[c * stride + j]);
    if (kg) kg[j * d.K + c0 + c] = s.k[c * stride + j] * f;
    bg[j * d.K + c0 + c] = s.b[c * stride + j] * f;
  }
  const int steps = C / kCheckpointTokens;
  float* decay = out.decay + block * steps * d.K + c0;
  for (int e = threadIdx.x; e < steps * kSliceKeys; e += kThreads) {
    const int m = e / kSliceKeys, c = e % kSliceKeys;
    decay[m * d.K + c] = exp2_flushed(s.l[c * stride + m * kCheckpointTokens + kCheckpointTokens - 1]);
  }
}

// acc[r] += sum over m < depth of left[row r][m] * right(m), for rows row_group + groups * r of `left`
// (row-major, `stride` floats a row): a thread's rows of a product, independent sums it interleaves where one
// sum per thread would wait on each product in turn.
template <int kRows, class Right>
__device__ __forceinline__ void sum_rows(float (&acc)[kRows], const float* left, int stride, int row_group,
                                         int groups, int depth, Right&& right) {
  for (int m = 0; m < depth; ++m) {
    const float x = right(m);
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r] = fmaf(left[(row_group + groups * r) * stride + m], x, acc[r]);
  }
}

// As many blocks an SM as the intra kernel's shared memory allows at chunk size C.
constexpr int intra_blocks_per_sm(int C) {
  return C == 16 ? 4 : C == 32 ? 3 : 2;
}

// One block per (chunk of the range, batch * head); writes what IntraOutputs holds, all fp32 (the CUDA-core
// state pass's).
template <class T, int C>
__global__ void __launch_bounds__(kThreads, intra_blocks_per_sm(C))
    rwkv7_chunk_intra_kernel(Pointers<T> p, ChunkDims d, ChunkRange range, IntraOutputs out) {
  static_assert(C % 16 == 0 && C <= kMaxChunk);
  constexpr int R = C / 16;  // rows and columns of the pair sums per thread: i = ti + 16 r, j = tj + 16 c
  extern __shared__ float smem[];
  const IntraShared s(smem, C);
  const int n = range.first + blockIdx.x, bh = blockIdx.y, b = bh / d.H, h = bh % d.H;
  const int t0 = n * C, L = min(C, d.T - t0);
  const int stride = C + 1;
  const int ti = threadIdx.x / 16, tj = threadIdx.x % 16;

  static_assert(std::is_same_v<T, float>, "bf16's state pass reads W, k~, b~ as planes: chunk_intra_mma.cuh");
  float qk[R][R] = {}, qb[R][R] = {}, ak[R][R] = {}, ab[R][R] = {};
  for (int c0 = 0; c0 < d.K; c0 += kSliceKeys) {
    stage_rows(s.q, 1, stride, p.q, d, d.K, b, h, t0, C, L, c0, kSliceKeys, d.scale);
    stage_rows(s.k, 1, stride, p.k, d, d.K, b, h, t0, C, L, c0, kSliceKeys);
    stage_rows(s.b, 1, stride, p.b, d, d.K, b, h, t0, C, L, c0, kSliceKeys);
    stage_decays(s, p, d, b, h, t0, L, c0, out.qg + (std::int64_t(bh) * d.chunks + n) * C * d.K);
    write_step_factors<T>(s, d, std::int64_t(bh) * d.chunks + n, c0, out);
    for (int c = 0; c < kSliceKeys; ++c) {
      const int at = c * stride;
      float lj[R], rj[R], kj[R], bj[R], total[R];  // total[J]: step J's sum
#pragma unroll
      for (int jc = 0; jc < R; ++jc) {
        const int j = tj + 16 * jc;
        lj[jc] = s.l[at + j], rj[jc] = s.r[at + j], kj[jc] = s.k[at + j], bj[jc] = s.b[at + j];
        total[jc] = s.l[at + 16 * jc + 15];
      }
#pragma unroll
      for (int ir = 0; ir < R; ++ir) {
        const int i = ti + 16 * ir;
        // One exponential a pair and key: e^{Γ_i - Γ_j} = e^{w_i} e^{Γe_i - Γ_j}, both factors <= 1 for j < i
        // (at j = i the second is e^{-w_i}, unbounded, and the first's product is 1: q_i as it is).
        const float lei = s.le[at + i], qi = s.q[at + i], qw = qi * s.wf[at + i], ai = s.a[at + i];
        float between = 0;  // the totals of the steps strictly between jc's and ir's, jc from ir down
#pragma unroll
        for (int jc = ir; jc >= 0; --jc) {  // j = tj + 16 jc: off the diagonal block every j < i
          const bool diagonal = jc == ir, before = !diagonal || tj < ti;
          if (jc < ir - 1) between += total[jc + 1];
          // Γe_i - Γ_j in the step: le_i - l_j; across: le_i + between + r_j
          const float f = exp2_flushed(lei + (diagonal ? -lj[jc] : between + rj[jc]));
          const float qe = before ? qw * f : tj == ti ? qi : 0.0f;
          const float ae = before ? ai * f : 0.0f;
          qk[ir][jc] = fmaf(qe, kj[jc], qk[ir][jc]);
          qb[ir][jc] = fmaf(qe, bj[jc], qb[ir][jc]);
          ak[ir][jc] = fmaf(ae, kj[jc], ak[ir][jc]);
          ab[ir][jc] = fmaf(ae, bj[jc], ab[ir][jc]);
        }
      }
    }
    __syncthreads();
  }

  const std::int64_t block = std::int64_t(bh) * d.chunks + n;
  float* qk_block = out.qk + block * C * C;
  float* qb_block = out.qb + block * C * C;
#pragma unroll
  for (int ir = 0; ir < R; ++ir)
#pragma unroll
    for (int jc = 0; jc < R; ++jc) {
      const int i = ti + 16 * ir, j = tj + 16 * jc;
      const bool lower = jc <= ir;  // the pair sums above are zero there
      qk_block[i * C + j] = lower ? qk[ir][jc] : 0.0f;
      qb_block[i * C + j] = lower ? qb[ir][jc] : 0.0f;
      s.ak[i * stride + j] = lower ? ak[ir][jc] : 0.0f;
      s.ab[i * stride + j] = lower ? ab[ir][jc] : 0.0f;
    }
  __syncthreads();
  invert_unit_lower(s.ab, s.x, s.v, C);
  save_for_backward(out, block, s.x, s.ak, C);

  // Below, a thread sums one column of rows row_group + groups * r (sum_rows). X is zero above its diagonal
  // and A_ak on and above it, so every sum runs over all C rows unmasked.
  // X A_ak into A_ab's place: (X A_ak)[i][j] = sum_m X[i][m] A_ak[m][j], then U = (X A_ak) v, where U is
  // asked for.
  if (out.u) {
    {
      constexpr int groups = kThreads / C, rows = C / groups;
      const int j = threadIdx.x % C, row_group = threadIdx.x / C;
      float acc[rows] = {};
      sum_rows(acc, s.x, stride, row_group, groups, C, [&](int m) { return s.ak[m * stride + j]; });
      __syncthreads();  // every thread's reads of A_ab are done (the inverse's)
#pragma unroll
      for (int r = 0; r < rows; ++r) s.ab[(row_group + groups * r) * stride + j] = acc[r];
      __syncthreads();
    }

    // U, a slice of value columns at a time.
    float* u_block = out.u + block * C * d.V;
    const int vstride = kValueSlice + 1;
    for (int v0 = 0; v0 < d.V; v0 += kValueSlice) {
      const int cols = min(kValueSlice, d.V - v0);
      stage_rows(s.v, vstride, 1, p.v, d, d.V, b, h, t0, C, L, v0, cols);
      __syncthreads();
      constexpr int groups = kThreads / kValueSlice, rows = C / groups;
      const int col = threadIdx.x % kValueSlice, row_group = threadIdx.x / kValueSlice;
      float acc[rows] = {};
      sum_rows(acc, s.ab, stride, row_group, groups, C, [&](int m) { return s.v[m * vstride + col]; });
#pragma unroll
      for (int r = 0; r < rows; ++r)
        if (col < cols) u_block[(row_group + groups * r) * d.V + v0 + col] = acc[r];
      __syncthreads();
    }
  }

  // W = X (a e^{Γe}), a slice of keys at a time.
  float* w_block = out.w + block * C * d.K;
  for (int c0 = 0; c0 < d.K; c0 += kSliceKeys) {
    stage_decays(s, p, d, b, h, t0, L, c0);
    constexpr int groups = kThreads / kSliceKeys, rows = C / groups;
    const int c = threadIdx.x % kSliceKeys, row_group = threadIdx.x / kSliceKeys;
    float acc[rows] = {};
    sum_rows(acc, s.x, stride, row_group, groups, C, [&](int m) { return s.ag[c * stride + m]; });
#pragma unroll
    for (int r = 0; r < rows; ++r) w_block[(row_group + groups * r) * d.K + c0 + c] = acc[r];
    __syncthreads();
  }
}

}  // namespace flabench::rwkv7
