// rwkv7 chunk, step 2 of the forward: the scan over the chunks, one block per (batch * head, slice of COLS
// value columns), 16 threads a column. Per chunk, with W, U and the factors from step 1:
//   V_new = U + W S                       (row i: a_i^T S_{i-1}; saved as fused_recurrent's sa)
// then 16 tokens at a time (a step, with k~ and b~ decayed to its end and its decay D):
//   S <- D S + sum_j (k~_j v_j^T + b~_j V_new_j^T)
// storing S before every 16th token where the backward needs it, else only at chunk starts (step 3 reads
// those). Nothing but these products is on the scan's sequential path: the next chunk's operands arrive by
// cp.async while the block works on this one (two buffers, where shared memory holds them).
#pragma once

#include "kernels/common/fused_recurrent/staging.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

// Value columns a block holds: 16, or 8 where 16 would leave SMs without a block (few heads: 1,24576,16,64
// has 64 blocks of 16 for 132 SMs), so that a block's sequential chain covers half as many columns.
constexpr int kStateColumns = 16, kNarrowStateColumns = 8;
constexpr int kStep = kCheckpointTokens;  // tokens per state update
__host__ __device__ constexpr int state_threads(int columns) {
  return 16 * columns;  // 16 row groups
}

// One chunk's operands in shared memory (floats; v as the input type), for `cols` value columns.
__host__ __device__ constexpr int operand_floats(int C, int K, int input_bytes, int cols) {
  return C * (K + 4)                    // W (rows padded: two row groups' reads in one wavefront)
         + 2 * C * K                    // k~, b~
         + (C / kStep) * K              // the steps' decays
         + C * cols                     // U
         + C * cols * input_bytes / 4;  // v
}
// Two chunks' operands where they fit in `limit` bytes (the next one arrives during this one), else one.
__host__ __device__ constexpr int operand_buffers(int C, int K, int input_bytes, int cols,
                                                  std::size_t limit) {
  const int fixed = K * cols + C * cols;  // S, V_new
  return sizeof(float) * (fixed + 2 * operand_floats(C, K, input_bytes, cols)) <= limit ? 2 : 1;
}
__host__ __device__ constexpr int states_shared_floats(int C, int K, int input_bytes, int cols, int buffers) {
  return K * cols + C * cols + buffers * operand_floats(C, K, input_bytes, cols);
}

template <class T>
struct ChunkOperands {
  float *W, *kg, *bg, *decay, *U;
  T* v;
  __device__ ChunkOperands(float* base, int C, int K, int cols) {
    W = base, kg = W + C * (K + 4), bg = kg + C * K, decay = bg + C * K, U = decay + (C / kStep) * K;
    v = reinterpret_cast<T*>(U + C * cols);
  }
};

// Issues the copies of chunk n's operands into `to` (16-byte pieces; every row is a multiple of 16 bytes).
template <class T, int COLS>
__device__ void fetch_operands(const ChunkOperands<T>& to, const Pointers<T>& p, const IntraOutputs& in,
                               const ChunkDims& d, int K, int n, int b, int h, int v0) {
  constexpr int kBlockThreads = state_threads(COLS);
  const int C = d.C, bh = b * d.H + h;
  const std::int64_t block = std::int64_t(bh) * d.chunks + n;
  constexpr int kFloats = 4;  // per piece
  for (int e = threadIdx.x; e < C * K / kFloats; e += kBlockThreads) {
    const int i = e / (K / kFloats), c = e % (K / kFloats) * kFloats;
    const std::int64_t at = (block * C + i) * K + c;
    fused::cp_async(to.W + i * (K + 4) + c, in.w + at, 16);
    fused::cp_async(to.kg + i * K + c, in.kg + at, 16);
    fused::cp_async(to.bg + i * K + c, in.bg + at, 16);
  }
  for (int e = threadIdx.x; e < (C / kStep) * K / kFloats; e += kBlockThreads)
    fused::cp_async(to.decay + e * kFloats, in.decay + block * (C / kStep) * K + e * kFloats, 16);
  for (int e = threadIdx.x; e < C * COLS / kFloats; e += kBlockThreads) {
    const int i = e / (COLS / kFloats), c = e % (COLS / kFloats) * kFloats;
    fused::cp_async(to.U + i * COLS + c, in.u + (block * C + i) * d.V + v0 + c, 16);
  }
  constexpr int kValues = 16 / sizeof(T);  // per piece
  const int t0 = n * C, L = min(C, d.T - t0);
  for (int e = threadIdx.x; e < L * COLS / kValues; e += kBlockThreads) {
    const int i = e / (COLS / kValues), c = e % (COLS / kValues) * kValues;
    fused::cp_async(to.v + i * COLS + c, p.v + token_row(d, b, t0 + i, h) * d.V + v0 + c, 16);
  }
}

// Copies N consecutive floats from 16-byte aligned shared memory (N a multiple of 4), or one by one.
template <int N>
__device__ __forceinline__ void load_run(const float* from, float (&to)[N]) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const float4 x = *reinterpret_cast<const float4*>(from + i);
      to[i] = x.x, to[i + 1] = x.y, to[i + 2] = x.z, to[i + 3] = x.w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) to[i] = from[i];
  }
}

// A thread keeps column `col` of the state rows KQ * row_group + q (q < KQ, K = 16 KQ) in registers, and
// computes V_new's rows row_group + 16 r: independent sums it interleaves (one sum per thread would wait on
// each product in turn), its keys read as runs of four.
template <class T, int KQ, int COLS>
__global__ void __launch_bounds__(state_threads(COLS), 2)
    rwkv7_chunk_states_kernel(Pointers<T> p, ChunkDims d, IntraOutputs in, float* states, float* sa,
                              bool every_checkpoint, int buffers) {
  constexpr int K = 16 * KQ;
  extern __shared__ __align__(16) float smem[];
  const int C = d.C;
  float* S = smem;             // [K][COLS], the state at the chunk's start
  float* vnew = S + K * COLS;  // [C][COLS]
  float* operands = vnew + C * COLS;
  const int operand_size = operand_floats(C, K, sizeof(T), COLS);
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, v0 = blockIdx.y * COLS;
  const int col = threadIdx.x % COLS, row_group = threadIdx.x / COLS;
  const int first_key = KQ * row_group;
  const std::int64_t head_state = std::int64_t(bh) * d.checkpoints * K * d.V;
  const auto state_at = [&](int q) { return std::int64_t(first_key + q) * d.V + v0 + col; };
  const auto buffer = [&](int n) {
    return ChunkOperands<T>(operands + (n % buffers) * operand_size, C, K, COLS);
  };
  const auto fetch = [&](int n) { fetch_operands<T, COLS>(buffer(n), p, in, d, K, n, b, h, v0); };

  float mine[KQ];
#pragma unroll
  for (int q = 0; q < KQ; ++q) {
    mine[q] = p.h0[std::int64_t(bh) * K * d.V + state_at(q)];
    S[(first_key + q) * COLS + col] = mine[q];
  }
  fetch(0);
  fused::cp_async_commit();

  for (int n = 0; n < d.chunks; ++n) {
    const int t0 = n * C, L = min(C, d.T - t0), steps = (L + kStep - 1) / kStep;
    if (buffers == 2) {
      if (n + 1 < d.chunks) fetch(n + 1);
      fused::cp_async_commit();  // possibly empty: chunk n's group is then the older of two
      fused::cp_async_wait<1>();
    } else {
      fused::cp_async_wait<0>();
    }
    __syncthreads();
    const ChunkOperands<T> x = buffer(n);

    // V_new = U + W S
    with_row_count(steps, [&](auto count) {
      constexpr int rows = decltype(count)::value;
      float acc[rows];
#pragma unroll
      for (int r = 0; r < rows; ++r) acc[r] = x.U[(row_group + 16 * r) * COLS + col];
#pragma unroll 2
      for (int c = 0; c < K; c += 4) {
        const float s0 = S[c * COLS + col], s1 = S[(c + 1) * COLS + col], s2 = S[(c + 2) * COLS + col],
                    s3 = S[(c + 3) * COLS + col];
#pragma unroll
        for (int r = 0; r < rows; ++r) {
          const float4 w = *reinterpret_cast<const float4*>(x.W + (row_group + 16 * r) * (K + 4) + c);
          acc[r] = fmaf(w.x, s0, fmaf(w.y, s1, fmaf(w.z, s2, fmaf(w.w, s3, acc[r]))));
        }
      }
#pragma unroll
      for (int r = 0; r < rows; ++r) {
        const int i = row_group + 16 * r;
        vnew[i * COLS + col] = acc[r];
        if (i < L) sa[token_row(d, b, t0 + i, h) * d.V + v0 + col] = acc[r];
      }
    });
    __syncthreads();

    for (int m = 0; m < steps; ++m) {
      if (every_checkpoint || m == 0) {
        float* out = states + head_state + std::int64_t(t0 / kStep + m) * K * d.V;
#pragma unroll
        for (int q = 0; q < KQ; ++q) out[state_at(q)] = mine[q];
      }
      float decay[KQ];
      load_run(x.decay + m * K + first_key, decay);
#pragma unroll
      for (int q = 0; q < KQ; ++q) mine[q] *= decay[q];
      const int last = min(L, (m + 1) * kStep);
      for (int j = m * kStep; j < last; ++j) {
        const float vj = to_float(x.v[j * COLS + col]), nj = vnew[j * COLS + col];
        float kj[KQ], bj[KQ];
        load_run(x.kg + j * K + first_key, kj);
        load_run(x.bg + j * K + first_key, bj);
#pragma unroll
        for (int q = 0; q < KQ; ++q) mine[q] = fmaf(kj[q], vj, fmaf(bj[q], nj, mine[q]));
      }
    }
#pragma unroll
    for (int q = 0; q < KQ; ++q) S[(first_key + q) * COLS + col] = mine[q];
    __syncthreads();  // S for the next V_new; this buffer is refilled after it
    if (buffers == 1 && n + 1 < d.chunks) {
      fetch(n + 1);
      fused::cp_async_commit();
    }
  }
#pragma unroll
  for (int q = 0; q < KQ; ++q) p.ht[std::int64_t(bh) * K * d.V + state_at(q)] = mine[q];
}

}  // namespace flabench::rwkv7
