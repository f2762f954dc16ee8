// rwkv7 chunk, step 2 on the tensor cores (bf16 inputs): chunk_states.cuh's scan with the same operands and
// outputs, its products as mma.sync tiles. A warp holds 16 state rows (keys) of the block's COLS value
// columns as fp32 accumulators; per chunk
//   V_new = U + W S                          (C x COLS tiles over the warps, S read from shared memory)
// then per 16-token step, one k-step of the tensor cores:
//   S <- D S + k~^T v + b~^T V_new           (D per row of the accumulators)
// Every fp32 operand (W, S, k~, b~, V_new) goes in as two bf16 parts (warp_mma.cuh's Exact), so each
// product keeps about 16 bits of its operands against the CUDA-core scan's 24; v is bf16 already. Rows past
// the sequence's end read as zero (their room holds whatever the workspace held). The CUDA-core kernel
// spent 8 FMAs and three shared reads a key, column and token (kernels/notes/rwkv7_chunk.md, v13).
#pragma once

#include <cuda_bf16.h>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/rwkv7/chunk_states.cuh"

namespace flabench::rwkv7 {

template <int KQ, int COLS>
__global__ void __launch_bounds__(mma_state_threads(KQ))
    rwkv7_chunk_states_mma_kernel(Pointers<__nv_bfloat16> p, ChunkDims d, IntraOutputs in, float* states,
                                  float* sa, bool every_checkpoint, int buffers) {
  using T = __nv_bfloat16;
  using chunk::Exact;
  constexpr int K = 16 * KQ, NT = COLS / 8;
  constexpr int SS = column_stride(COLS), KS = key_stride(K), VS = value_stride(COLS, sizeof(T));
  extern __shared__ __align__(16) float smem[];
  const int C = d.C;
  float* S = smem;           // [K][SS], the state at the chunk's start
  float* vnew = S + K * SS;  // [C][SS]
  float* operands = vnew + C * SS;
  const int operand_size = operand_floats(C, K, sizeof(T), COLS);
  const int bh = blockIdx.y, b = bh / d.H, h = bh % d.H, v0 = blockIdx.x * COLS;
  const int warp = threadIdx.x / 32, m0 = 16 * warp;  // the warp's keys m0 .. m0 + 15
  const std::int64_t head_state = std::int64_t(bh) * d.checkpoints * K * d.V;
  const auto buffer = [&](int n) {
    return ChunkOperands<T>(operands + (n % buffers) * operand_size, C, K, COLS);
  };
  const auto fetch = [&](int n) {
    fetch_operands<T, COLS, mma_state_threads(KQ)>(buffer(n), p, in, d, K, n, b, h, v0);
  };
  // The accumulators' state to `to` ([K][ld] floats from the block's first column), a pair at a time.
  float acc[NT][4];
  const auto store_state = [&](float* to, std::int64_t ld) {
    chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float first, float second) {
      *reinterpret_cast<float2*>(to + key * ld + col) = make_float2(first, second);
    });
  };

  const float* h0 = p.h0 + std::int64_t(bh) * K * d.V + v0;
  chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float& first, float& second) {
    const float2 x = *reinterpret_cast<const float2*>(h0 + std::int64_t(key) * d.V + col);
    first = x.x, second = x.y;
  });
  store_state(S, SS);

  for (int n = 0; n < d.chunks; ++n) {
    const int t0 = n * C, L = min(C, d.T - t0), steps = (L + kStep - 1) / kStep;
    await_operands(n, d.chunks, buffers, fetch);
    const ChunkOperands<T> x = buffer(n);

    // V_new = U + W S, a 16 x 8 tile at a time; the k-steps alternate between two sums (half the chain).
    for (int tile = warp; tile < (C / 16) * NT; tile += KQ) {
      const int i0 = 16 * (tile / NT), c0 = 8 * (tile % NT);
      float even[1][4], odd[1][4] = {};
      chunk::for_each_accumulator(
          even, 1, i0, c0, [&](int i, int col, float& value) { value = i < L ? x.U[i * COLS + col] : 0.0f; });
      const auto w = [&](int i, int key) { return i < L ? x.W[i * KS + key] : 0.0f; };
      const auto s = [&](int key, int col) { return S[key * SS + col]; };
#pragma unroll
      for (int k0 = 0; k0 < K; k0 += 32) {
        chunk::mma_k16<T, 1, Exact::both>(even, 1, i0, c0, k0, w, s);
        if (k0 + 16 < K) chunk::mma_k16<T, 1, Exact::both>(odd, 1, i0, c0, k0 + 16, w, s);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) even[0][r] += odd[0][r];
      chunk::for_each_pair(even, 1, i0, c0, [&](int i, int col, float first, float second) {
        *reinterpret_cast<float2*>(vnew + i * SS + col) = make_float2(first, second);
        if (i < L)
          *reinterpret_cast<float2*>(sa + token_row(d, b, t0 + i, h) * d.V + v0 + col) =
              make_float2(first, second);
      });
    }
    __syncthreads();

    for (int m = 0; m < steps; ++m) {
      if (every_checkpoint || m == 0)
        store_state(states + head_state + std::int64_t(t0 / kStep + m) * K * d.V + v0, d.V);
      const float* decay = x.decay + m * K;
      chunk::for_each_accumulator(acc, NT, m0, 0, [&](int key, int, float& value) { value *= decay[key]; });
      const int j0 = m * kStep;
      chunk::mma_k16<T, NT, Exact::a>(
          acc, NT, m0, 0, j0, [&](int key, int j) { return j < L ? x.kg[j * KS + key] : 0.0f; },
          [&](int j, int col) { return j < L ? to_float(x.v[j * VS + col]) : 0.0f; });
      chunk::mma_k16<T, NT, Exact::both>(
          acc, NT, m0, 0, j0, [&](int key, int j) { return j < L ? x.bg[j * KS + key] : 0.0f; },
          [&](int j, int col) { return j < L ? vnew[j * SS + col] : 0.0f; });
    }
    store_state(S, SS);
    __syncthreads();  // S for the next V_new; this buffer is refilled after it
    refill_operands(n, d.chunks, buffers, fetch);
  }
  store_state(p.ht + std::int64_t(bh) * K * d.V + v0, d.V);
}

}  // namespace flabench::rwkv7
