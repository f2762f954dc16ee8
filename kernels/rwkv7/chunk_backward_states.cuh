// rwkv7 chunk backward, its first step: the gradient of the state, a scan over the chunks in reverse -- the
// forward's state pass transposed (tests/kernels/dplr_chunk_backward_form.h has the algebra). With dS the
// gradient of the state at the chunk's end (dht at the last), per chunk:
//   dV_new = A_qb^T dO + b~ dS              (b~ = b e^{Γ_L - Γ}, the state update's b to the chunk's end)
//   dS    <- e^{Γ_L} dS + (q e^Γ)^T dO + W^T dV_new
// storing each chunk's dS and dV_new for the local gradients (chunk_backward_local.cuh), and dh0 at the end.
// This is the CUDA-core scan, for fp16 and fp32 inputs and for bf16's where the tensor-core one
// (chunk_backward_states_mma.cuh) does not fit a block's shared memory. One block per (slice of COLS value
// columns, batch * head), 16 threads a column, as the forward's CUDA-core pass; the next chunk's operands
// arrive by cp.async while the block works on this one where two buffers fit. All fp32 (W and b~ from the
// copies a bf16 forward makes for it): the state gradient and dV_new are two of the backward intermediates
// that need it (kernels/notes/rwkv7_chunk.md).
#pragma once

#include "kernels/common/cp_async.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_states.cuh"

namespace flabench::rwkv7 {

// Where the backward's steps read and write (ChunkWorkspace's regions).
struct BackwardRegions {
  const float *states, *sa;  // the forward's: the states before every 16th token (fused layout), V_new
  float *dstates, *dvnew;    // dS at each chunk's end [K][V], dV_new [C][V]
  float* pairs;              // dA_qk, dA_qb, dA_ak, dA_ab [4][C][C] (the local gradients' to the channels')
  float* terms;              // ChannelTerms (the same)
  float* scratch;            // kLocalSlots blocks of LocalScratch
  std::size_t scratch_floats;
};

// One chunk's operands of the scan in shared memory (floats; dO as the input type).
__host__ __device__ constexpr int dstate_operand_floats(int C, int K, int input_bytes, int cols) {
  return C * padded_row(C)                                       // A_qb
         + 3 * C * padded_row(K)                                 // W, q e^Γ, b decayed to its step's end
         + (C / kCheckpointTokens) * K                           // the steps' decays
         + C * padded_row(cols, input_bytes) * input_bytes / 4;  // dO
}
// dS [K][cols], dV_new [C][cols], and the decays from each step's end to the chunk's end (then the chunk's).
__host__ __device__ constexpr int dstate_fixed_floats(int C, int K, int cols) {
  return (K + C) * padded_row(cols) + (C / kCheckpointTokens + 1) * K;
}
__host__ __device__ constexpr int dstate_buffers(int C, int K, int input_bytes, int cols, std::size_t limit) {
  return sizeof(float) *
                     (dstate_fixed_floats(C, K, cols) + 2 * dstate_operand_floats(C, K, input_bytes, cols)) <=
                 limit
             ? 2
             : 1;
}
__host__ __device__ constexpr int dstate_shared_floats(int C, int K, int input_bytes, int cols, int buffers) {
  return dstate_fixed_floats(C, K, cols) + buffers * dstate_operand_floats(C, K, input_bytes, cols);
}

template <class T>
struct DStateOperands {
  float *qb, *w, *qg, *bg, *decay;
  T* dout;
  __device__ DStateOperands(float* base, int C, int K) {
    qb = base, w = qb + C * padded_row(C), qg = w + C * padded_row(K), bg = qg + C * padded_row(K);
    decay = bg + C * padded_row(K);
    dout = reinterpret_cast<T*>(decay + (C / kCheckpointTokens) * K);
  }
};

// The reverse scan runs over a range of chunks, from its last (the backward in pieces: chunk.cu). A range
// starts from the dS at its last chunk's end: the incoming final-state gradient (none: zeros) at the
// sequence's end, else what the range after it left in dstates there; it leaves its dS at its first chunk's
// start in dh0 at the sequence's start, else in dstates at the chunk before (which the range before stores
// there again as its first: the same values). [K][V] each, a head's.
template <class T>
__device__ __forceinline__ const float* dstate_entry(const GradPointers<T>& g, const ChunkDims& d,
                                                     const BackwardRegions& out, ChunkRange range, int bh) {
  const std::int64_t head = std::int64_t(bh) * d.K * d.V;
  if (range.end == d.chunks) return g.d_ht ? g.d_ht + head : nullptr;
  return out.dstates + (std::int64_t(bh) * d.chunks + range.end - 1) * d.K * d.V;
}
template <class T>
__device__ __forceinline__ float* dstate_exit(const GradPointers<T>& g, const ChunkDims& d,
                                              const BackwardRegions& out, ChunkRange range, int bh) {
  if (range.first == 0) return g.dh0 + std::int64_t(bh) * d.K * d.V;
  return out.dstates + (std::int64_t(bh) * d.chunks + range.first - 1) * d.K * d.V;
}

template <class T, int KQ, int COLS>
__global__ void __launch_bounds__(state_threads(COLS))
    rwkv7_chunk_dstates_kernel(GradPointers<T> g, ChunkDims d, ChunkRange range, IntraOutputs in,
                               BackwardRegions out, int buffers) {
  constexpr int K = 16 * KQ, kBlockThreads = state_threads(COLS);
  constexpr int SS = padded_row(COLS), KS = padded_row(K), OS = padded_row(COLS, sizeof(T));
  extern __shared__ __align__(16) float smem[];
  const int C = d.C, CS = padded_row(C), steps = C / kCheckpointTokens;
  float* dS = smem;             // [K][SS]
  float* dvn = dS + K * SS;     // [C][SS]
  float* later = dvn + C * SS;  // [steps + 1][K]: e^{Γ_L - Γ_(step's end)}; row `steps` e^{Γ_L}
  float* operands = later + (steps + 1) * K;
  const int operand_size = dstate_operand_floats(C, K, sizeof(T), COLS);
  const int bh = blockIdx.y, b = bh / d.H, h = bh % d.H, v0 = blockIdx.x * COLS;
  const int col = threadIdx.x % COLS, row_group = threadIdx.x / COLS, first_key = KQ * row_group;
  const auto chunk_of = [&](int i) { return range.end - 1 - i; };  // the i-th chunk the scan visits
  const auto buffer = [&](int i) {
    return DStateOperands<T>(operands + (i & (buffers - 1)) * operand_size, C, K);
  };
  const auto fetch = [&](int i) {
    const DStateOperands<T> to = buffer(i);
    const int n = chunk_of(i), t0 = n * C;
    const std::int64_t block = std::int64_t(bh) * d.chunks + n;
    copy_rows<kBlockThreads>(C / 4, to.qb, CS * 4, in.qb + block * C * C, C * 4, C);
    copy_rows<kBlockThreads>(K / 4, to.w, KS * 4, in.w + block * C * K, K * 4, C);
    copy_rows<kBlockThreads>(K / 4, to.qg, KS * 4, in.qg + block * C * K, K * 4, C);
    copy_rows<kBlockThreads>(K / 4, to.bg, KS * 4, in.bg + block * C * K, K * 4, C);
    copy_rows<kBlockThreads>(K / 4, to.decay, K * 4, in.decay + block * steps * K, K * 4, steps);
    copy_rows<kBlockThreads>(COLS * sizeof(T) / 16, to.dout, OS * sizeof(T),
                             g.d_o + token_row(d, b, t0, h) * d.V + v0, std::int64_t(d.H) * d.V * sizeof(T),
                             min(C, d.T - t0));
  };
  const auto state_at = [&](int q) { return std::int64_t(first_key + q) * d.V + v0 + col; };

  float mine[KQ];
  const float* entry = dstate_entry(g, d, out, range, bh);
#pragma unroll
  for (int q = 0; q < KQ; ++q) mine[q] = entry ? entry[state_at(q)] : 0.0f;

  for (int i = 0; i < range.count(); ++i) {
    const int n = chunk_of(i), t0 = n * C, L = min(C, d.T - t0);
    const std::int64_t block = std::int64_t(bh) * d.chunks + n;
    await_operands(i, range.count(), buffers, fetch);
    const DStateOperands<T> x = buffer(i);
    for (int c = threadIdx.x; c < K; c += kBlockThreads) {
      float f = 1;
      for (int s = steps - 1; s >= 0; --s) later[s * K + c] = f, f *= x.decay[s * K + c];
      later[steps * K + c] = f;
    }
    float* dstate = out.dstates + block * K * d.V;
#pragma unroll
    for (int q = 0; q < KQ; ++q) {
      dS[(first_key + q) * SS + col] = mine[q];
      dstate[state_at(q)] = mine[q];
    }
    __syncthreads();

    // dV_new, rows row_group + 16 r: row i is in step r
    with_row_count(steps, [&](auto count) {
      constexpr int rows = decltype(count)::value;
      float acc[rows] = {};
      for (int m = 0; m < L; ++m) {
        const float dom = to_float(x.dout[m * OS + col]);
#pragma unroll
        for (int r = 0; r < rows; ++r) acc[r] = fmaf(x.qb[m * CS + row_group + 16 * r], dom, acc[r]);
      }
      add_rows_times_state(
          acc, dS, SS, col, K, [&](int r, int c) {  // b~ = b decayed to its step's end, then on
            const float4 y = *reinterpret_cast<const float4*>(x.bg + (row_group + 16 * r) * KS + c);
            const float4 f = *reinterpret_cast<const float4*>(later + r * K + c);
            return make_float4(y.x * f.x, y.y * f.y, y.z * f.z, y.w * f.w);
          });
      float* to = out.dvnew + block * C * d.V + v0 + col;
#pragma unroll
      for (int r = 0; r < rows; ++r) {
        const int row = row_group + 16 * r;
        dvn[row * SS + col] = acc[r];
        to[std::int64_t(row) * d.V] = acc[r];
      }
    });
    __syncthreads();

    decay_and_add_tokens(mine, later + steps * K, x.qg, x.w, KS, first_key, 0, L, [&](int m) {
      return make_float2(to_float(x.dout[m * OS + col]), dvn[m * SS + col]);
    });
    __syncthreads();  // this buffer is refilled after it
    refill_operands(i, range.count(), buffers, fetch);
  }
  float* exit = dstate_exit(g, d, out, range, bh);
#pragma unroll
  for (int q = 0; q < KQ; ++q) exit[state_at(q)] = mine[q];
}

}  // namespace flabench::rwkv7
