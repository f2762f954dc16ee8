// rwkv7 chunk, step 2 of the forward: the scan over the chunks, one block per (slice of COLS value columns,
// batch * head; a head's slices neighbours in the grid, so they share its operands in L2), 16 threads a
// column (on the CUDA cores: fp16 and fp32 inputs; bf16's is chunk_states_mma.cuh). Per chunk, with W, U and
// the factors from step 1:
//   V_new = U + W S                       (row i: a_i^T S_{i-1}; saved as fused_recurrent's sa)
// then 16 tokens at a time (a step, with k~ and b~ decayed to its end and its decay D):
//   S <- D S + sum_j (k~_j v_j^T + b~_j V_new_j^T)
// storing S before every 16th token where the backward needs it, else only at chunk starts (step 3 reads
// those). Nothing but these products is on the scan's sequential path: the next chunk's operands arrive by
// cp.async while the block works on this one (two buffers, where shared memory holds them).
#pragma once

#include "kernels/common/cp_async.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_states_plan.h"
#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

template <class T>
struct ChunkOperands {
  float *W, *kg, *bg, *decay, *U;
  T* v;
  __device__ ChunkOperands(float* base, int C, int K, int cols) {
    W = base, kg = W + C * padded_row(K), bg = kg + C * padded_row(K), decay = bg + C * padded_row(K);
    U = decay + (C / kStep) * K;
    v = reinterpret_cast<T*>(U + C * cols);
  }
};

// Issues the copies of chunk n's step decays, U and v (its valid rows; v's rows `vs` elements apart) into
// shared memory.
template <class T, int K, int COLS, int kBlockThreads>
__device__ void fetch_step_operands(float* decay, float* U, T* v, int vs, const Pointers<T>& p,
                                    const IntraOutputs& in, const ChunkDims& d, int n, int b, int h, int v0) {
  const int C = d.C, t0 = n * C;
  const std::int64_t block = std::int64_t(b * d.H + h) * d.chunks + n;
  copy_rows<kBlockThreads>(K / 4, decay, K * 4, in.decay + block * (C / kStep) * K, K * 4, C / kStep);
  copy_rows<kBlockThreads>(COLS / 4, U, COLS * 4, in.u + block * C * d.V + v0, std::int64_t(d.V) * 4, C);
  copy_rows<kBlockThreads>(COLS * sizeof(T) / 16, v, vs * sizeof(T), p.v + token_row(d, b, t0, h) * d.V + v0,
                           std::int64_t(d.H) * d.V * sizeof(T), min(C, d.T - t0));
}

// Issues the copies of chunk n's operands into `to` (every row is a multiple of 16 bytes).
template <class T, int K, int COLS, int kBlockThreads>
__device__ void fetch_operands(const ChunkOperands<T>& to, const Pointers<T>& p, const IntraOutputs& in,
                               const ChunkDims& d, int n, int b, int h, int v0) {
  constexpr int KS = padded_row(K);
  const int C = d.C;
  const std::int64_t at = (std::int64_t(b * d.H + h) * d.chunks + n) * C * K;
  copy_rows<kBlockThreads>(K / 4, to.W, KS * 4, in.w + at, K * 4, C);
  copy_rows<kBlockThreads>(K / 4, to.kg, KS * 4, in.kg + at, K * 4, C);
  copy_rows<kBlockThreads>(K / 4, to.bg, KS * 4, in.bg + at, K * 4, C);
  fetch_step_operands<T, K, COLS, kBlockThreads>(to.decay, to.U, to.v, padded_row(COLS, sizeof(T)), p, in, d,
                                                 n, b, h, v0);
}

// Where a launch of the scan over a range of chunks takes its first state and leaves its last, [K][V] floats
// of head bh: h0 and ht where the range starts or ends the sequence, else the states saved at the chunk
// starts (the launch before it left the first there; the one after takes the last from there).
struct StateEnds {
  const float* start;
  float* end;
  template <class T>
  __device__ StateEnds(const Pointers<T>& p, const ChunkDims& d, ChunkRange range, float* states, int bh,
                       int K) {
    const auto saved = [&](int n) {
      return states + (std::int64_t(bh) * d.checkpoints + n * d.C / kStep) * K * d.V;
    };
    const std::int64_t head = std::int64_t(bh) * K * d.V;
    start = range.first == 0 ? p.h0 + head : saved(range.first);
    end = range.end == d.chunks ? p.ht + head : saved(range.end);
  }
};

// Chunk n's operands made ready for the block (chunk 0's copies issued here), with two buffers issuing chunk
// n + 1's copies first (they arrive while the block works on chunk n); ends with the block synchronised.
template <class Fetch>
__device__ void await_operands(int n, int chunks, int buffers, const Fetch& fetch) {
  if (n == 0) {
    fetch(0);
    cp_async_commit();
  }
  if (buffers == 2) {
    if (n + 1 < chunks) fetch(n + 1);
    cp_async_commit();  // possibly empty: chunk n's group is then the older of two
    cp_async_wait<1>();
  } else {
    cp_async_wait<0>();
  }
  __syncthreads();
}
// Once the block is done with chunk n's buffer (synchronised): with one buffer, chunk n + 1's copies into it.
template <class Fetch>
__device__ void refill_operands(int n, int chunks, int buffers, const Fetch& fetch) {
  if (buffers == 1 && n + 1 < chunks) {
    fetch(n + 1);
    cp_async_commit();
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

// acc[r] += sum over keys c of row(r, c) S[c][col] for a thread's rows r (row(r, c) gives keys c .. c + 3 of
// row r as a float4), S [K][SS] in shared memory read four keys at a time: V_new's U + W S here, dV_new's
// b~ dS in chunk_backward_states.cuh.
template <int kRows, class Row>
__device__ __forceinline__ void add_rows_times_state(float (&acc)[kRows], const float* S, int SS, int col,
                                                     int K, const Row& row) {
#pragma unroll 2
  for (int c = 0; c < K; c += 4) {
    const float s0 = S[c * SS + col], s1 = S[(c + 1) * SS + col], s2 = S[(c + 2) * SS + col],
                s3 = S[(c + 3) * SS + col];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const float4 w = row(r, c);
      acc[r] = fmaf(w.x, s0, fmaf(w.y, s1, fmaf(w.z, s2, fmaf(w.w, s3, acc[r]))));
    }
  }
}

// mine[q] = decay[q] mine[q] + sum over tokens j in [from, to) of x_j[q] u_j + y_j[q] w_j, for a thread's
// KQ state rows from first_key (x, y [C][KS] key rows in shared memory; (u_j, w_j) = column(j) its column's
// values): the state update of the forward (k~ v + b~ V_new) and its transpose in the backward's scan
// ((q e^Γ) dO + W dV_new).
template <int KQ, class Column>
__device__ __forceinline__ void decay_and_add_tokens(float (&mine)[KQ], const float* decay, const float* x,
                                                     const float* y, int KS, int first_key, int from, int to,
                                                     const Column& column) {
  float factor[KQ];
  load_run(decay + first_key, factor);
#pragma unroll
  for (int q = 0; q < KQ; ++q) mine[q] *= factor[q];
  for (int j = from; j < to; ++j) {
    const float2 uw = column(j);
    float xj[KQ], yj[KQ];
    load_run(x + j * KS + first_key, xj);
    load_run(y + j * KS + first_key, yj);
#pragma unroll
    for (int q = 0; q < KQ; ++q) mine[q] = fmaf(xj[q], uw.x, fmaf(yj[q], uw.y, mine[q]));
  }
}

// A thread keeps column `col` of the state rows KQ * row_group + q (q < KQ, K = 16 KQ) in registers, and
// computes V_new's rows row_group + 16 r: independent sums it interleaves (one sum per thread would wait on
// each product in turn), its keys read as runs of four.
template <class T, int KQ, int COLS>
__global__ void __launch_bounds__(state_threads(COLS), 2)
    rwkv7_chunk_states_kernel(Pointers<T> p, ChunkDims d, ChunkRange range, IntraOutputs in, float* states,
                              float* sa, bool every_checkpoint, int buffers) {
  constexpr int K = 16 * KQ;
  extern __shared__ __align__(16) float smem[];
  const int C = d.C;
  constexpr int SS = padded_row(COLS), KS = padded_row(K), VS = padded_row(COLS, sizeof(T));
  float* S = smem;           // [K][SS], the state at the chunk's start
  float* vnew = S + K * SS;  // [C][SS]
  float* operands = vnew + C * SS;
  const int operand_size = operand_floats(C, K, sizeof(T), COLS);
  const int bh = blockIdx.y, b = bh / d.H, h = bh % d.H, v0 = blockIdx.x * COLS;
  const int col = threadIdx.x % COLS, row_group = threadIdx.x / COLS;
  const int first_key = KQ * row_group;
  const std::int64_t head_state = std::int64_t(bh) * d.checkpoints * K * d.V;
  const auto state_at = [&](int q) { return std::int64_t(first_key + q) * d.V + v0 + col; };
  const auto buffer = [&](int i) {  // the range's chunk i's (buffers is 1 or 2)
    return ChunkOperands<T>(operands + (i & (buffers - 1)) * operand_size, C, K, COLS);
  };
  const auto fetch = [&](int i) {
    fetch_operands<T, K, COLS, state_threads(COLS)>(buffer(i), p, in, d, range.first + i, b, h, v0);
  };
  const StateEnds ends(p, d, range, states, bh, K);

  float mine[KQ];
#pragma unroll
  for (int q = 0; q < KQ; ++q) {
    mine[q] = ends.start[state_at(q)];
    S[(first_key + q) * SS + col] = mine[q];
  }

  for (int i = 0; i < range.count(); ++i) {
    const int n = range.first + i, t0 = n * C, L = min(C, d.T - t0), steps = (L + kStep - 1) / kStep;
    await_operands(i, range.count(), buffers, fetch);
    const ChunkOperands<T> x = buffer(i);

    // V_new = U + W S
    with_row_count(steps, [&](auto count) {
      constexpr int rows = decltype(count)::value;
      float acc[rows];
#pragma unroll
      for (int r = 0; r < rows; ++r) acc[r] = x.U[(row_group + 16 * r) * COLS + col];
      add_rows_times_state(acc, S, SS, col, K, [&](int r, int c) {
        return *reinterpret_cast<const float4*>(x.W + (row_group + 16 * r) * KS + c);
      });
#pragma unroll
      for (int r = 0; r < rows; ++r) {
        const int i = row_group + 16 * r;
        vnew[i * SS + col] = acc[r];
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
      decay_and_add_tokens(
          mine, x.decay + m * K, x.kg, x.bg, KS, first_key, m * kStep, min(L, (m + 1) * kStep),
          [&](int j) { return make_float2(to_float(x.v[j * VS + col]), vnew[j * SS + col]); });
    }
#pragma unroll
    for (int q = 0; q < KQ; ++q) S[(first_key + q) * SS + col] = mine[q];
    __syncthreads();  // S for the next V_new; this buffer is refilled after it
    refill_operands(i, range.count(), buffers, fetch);
  }
#pragma unroll
  for (int q = 0; q < KQ; ++q) ends.end[state_at(q)] = mine[q];
}

}  // namespace flabench::rwkv7
