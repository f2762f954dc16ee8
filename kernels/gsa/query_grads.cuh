// gsa's query gradient in its fused_recurrent backward: dq_t = scale Hk_t dz_t, Hk_t pass 1's state after
// token t. The forward saved Hk^T [M x K] before every kChunk-th token (the checkpoints gla's backward reads
// for pass 1), so each chunk follows from its own checkpoint H0 and the chunks of every head run at once
// (kernels/notes/gsa.md, version 28), in the chunk form (version 30): with L_t the slots' log decays summed
// over the chunk up to token t,
//   dq_t = scale (sum_m dz_t[m] e^{L_t[m]} H0[m, :] + sum_{j <= t} B[t, j] k_j),
//   B[t, j] = sum_m dz_t[m] s_j[m] e^{L_t[m] - L_j[m]},
// two products on the tensor cores and a 16 x 16 matrix B on the CUDA cores, instead of stepping the state
// through the chunk (4 flops a state element and token, which took the issue slots the backward's scans
// want). Every decay factor is a product of e^{f} <= 1 in token order, as pass 1's forward makes them, so f
// down to -40 cannot overflow; 16-bit inputs' fp32 operands go to the tensor cores in two bf16 parts, fp32
// inputs' in 3xTF32 (chunk::mma_k16<float>; version 46).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/problem.h"
#include "kernels/gsa/fused_plan.h"

namespace flabench::gsa::gla_passes {

constexpr int kQueryGradTokens = fused::kChunk;  // a chunk: the checkpoints' spacing
constexpr int kQueryGradWarps = 4;               // each a strip of dq's key columns
// B's columns go to threads in pairs, j with 15 - j (17 rows between them, the same work for every pair);
// each pair's sums over the slots are split between kQueryGradSlices threads, one slice of slots each.
constexpr int kQueryGradPairs = kQueryGradTokens / 2;
constexpr int kQueryGradSlices = kQueryGradWarps * 32 / kQueryGradPairs;
constexpr int kQueryGradMaxTiles = 8;  // 8-key tiles a warp: K <= 256

// Where a segment's query gradients come from and go: the token rows of [B, T, H, ...] tensors, the
// checkpoints [B*H, checkpoint_stride, M, K].
struct QueryGradShape {
  int T, H, K, heads, checkpoint_stride;
  int t0, length;  // the segment: tokens [t0, t0 + length) of every sequence, t0 a whole chunk
  float scale;
};

// The products' arithmetic: fp32 inputs in 3xTF32 (chunk::mma_k16<float>); 16-bit ones take bf16's range (the
// state and the decayed gradients are fp32 values split in two bf16 parts; fp16 keys split exactly too).
template <class T>
using QueryGradOp = std::conditional_t<std::is_same_v<T, float>, float, __nv_bfloat16>;

// Starts bringing the 128-byte line at `address` into L2 without waiting for it (no register is written), so
// a read of it later in the kernel finds it there instead of in DRAM.
__device__ __forceinline__ void prefetch_l2(const void* address) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
}

// N consecutive floats of shared memory in the widest pieces their count allows (the address aligned to
// them).
template <int N>
__device__ __forceinline__ void load_slots(const float* from, float (&x)[N]) {
  if constexpr (N % 4 == 0) {
    fused::load_floats(x, from);
  } else if constexpr (N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      const float2 two = *reinterpret_cast<const float2*>(from + i);
      x[i] = two.x, x[i + 1] = two.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = from[i];
  }
}

// Blocks an SM the launch bounds ask for: as many as a Hopper's shared memory holds at M <= 64 (31 KiB a
// block) and at M = 128 (44 KiB), so that ptxas keeps to the registers that allow them (at M = 64 it took 96
// registers, 5 blocks an SM, 58 against 54 us alone at 8,1024,8,64 with 7: kernels/notes/gsa.md, version 33).
template <int M>
constexpr int kQueryGradMinBlocks = M <= 64 ? 7 : 5;

template <class T, int M>
__global__ void __launch_bounds__(kQueryGradWarps * 32, kQueryGradMinBlocks<M>)
    query_grads_kernel(const float* checkpoints, const T* s, const T* f, const T* k, const T* dz, T* dq,
                       QueryGradShape a) {
  constexpr int kTokens = kQueryGradTokens, kSlotsAThread = M / kQueryGradSlices;
  constexpr int kThreads = kQueryGradWarps * 32, kVectors = kTokens * M / 8;  // f's and dz's 8-slot vectors
  constexpr int kVectorsAThread = (kVectors + kThreads - 1) / kThreads;
  constexpr int kLineBytes = 128, kFloatsALine = kLineBytes / int(sizeof(float));
  // Rows the products read as mma.sync's A operand (a lane's rows 8 apart, its columns 2 apart) are padded by
  // kFragmentPad so that those reads meet in 2 banks, not 8; B's loop reads decay and grads in 16-byte
  // pieces.
  constexpr int kFragmentPad = 8;
  __shared__ __align__(16) float decay[kTokens][M];      // e^{f_t}
  __shared__ __align__(16) float grads[kTokens][M];      // dz_t
  __shared__ float reaching[kTokens][M + kFragmentPad];  // dz_t e^{L_t}: what reaches the checkpoint
  __shared__ float partial[kTokens][kTokens][kQueryGradSlices + 1];  // padded: B's sums read it by column
  __shared__ float scores[kTokens][kTokens + kFragmentPad];          // B, zero above the diagonal
  const int head = int(blockIdx.x % unsigned(a.heads)), chunk = int(blockIdx.x / unsigned(a.heads));
  const int b = head / a.H, h = head % a.H;
  const int first = a.t0 + chunk * kTokens;
  const int tokens = min(kTokens, a.t0 + a.length - first);
  // [B, T, H, ...] rows: the chunk's tokens lie a.H rows apart from first_row. The products and stores, which
  // run per element, take 64-bit bases made once and 32-bit offsets within the chunk (version 33).
  const std::int64_t first_row = (std::int64_t(b) * a.T + first) * a.H + h;
  const auto row = [&](int token) { return first_row + std::int64_t(token) * a.H; };
  const T* const keys = k + first_row * a.K;
  T* const query_grads = dq + first_row * a.K;
  const int key_stride = a.H * a.K;

  // Every global read of the block starts at once: the checkpoint's and the keys' lines into L2 (the
  // products read them last), f and dz as 8-slot vectors and B's two rows of s into registers; one trip to
  // memory before the first use instead of one a loop pass (kernels/notes/gsa.md, version 31).
  const float* const state =
      checkpoints + (std::int64_t(head) * a.checkpoint_stride + first / kTokens) * M * a.K;
  for (int line = threadIdx.x; line < M * a.K / kFloatsALine; line += kThreads)
    prefetch_l2(state + line * kFloatsALine);
  const int key_lines = (a.K * int(sizeof(T)) + kLineBytes - 1) / kLineBytes;
  for (int i = threadIdx.x; i < tokens * key_lines; i += kThreads)
    prefetch_l2(k + row(i / key_lines) * a.K + i % key_lines * (kLineBytes / int(sizeof(T))));
  float log_decay[kVectorsAThread][8], grad[kVectorsAThread][8];
#pragma unroll
  for (int r = 0; r < kVectorsAThread; ++r) {
    const int i = threadIdx.x + r * kThreads, token = i / (M / 8), m = i % (M / 8) * 8;
    if (i < kVectors && token < tokens) {
      fused::load8(f + row(token) * M + m, log_decay[r]);
      fused::load8(dz + row(token) * M + m, grad[r]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        log_decay[r][e] = 0.0f, grad[r][e] = 0.0f;  // past the end: e^0, no gradient
    }
  }
  const int pair = threadIdx.x / kQueryGradSlices, slice = threadIdx.x % kQueryGradSlices;
  const int first_slot = slice * kSlotsAThread;
  float slot[2][kSlotsAThread];  // s_j of B's columns j = pair and 15 - pair, this thread's slots
#pragma unroll
  for (int side = 0; side < 2; ++side) {
    const int j = side == 0 ? pair : kTokens - 1 - pair;
    if constexpr (kSlotsAThread % 8 == 0) {
#pragma unroll
      for (int i = 0; i < kSlotsAThread; i += 8) {
        float eight[8] = {};
        if (j < tokens) fused::load8(s + row(j) * M + first_slot + i, eight);
#pragma unroll
        for (int e = 0; e < 8; ++e) slot[side][i + e] = eight[e];
      }
    } else {
#pragma unroll
      for (int i = 0; i < kSlotsAThread; ++i)
        slot[side][i] = j < tokens ? to_float(s[row(j) * M + first_slot + i]) : 0.0f;
    }
  }
#pragma unroll
  for (int r = 0; r < kVectorsAThread; ++r) {
    const int i = threadIdx.x + r * kThreads, token = i / (M / 8), m = i % (M / 8) * 8;
    if (i >= kVectors) continue;
#pragma unroll
    for (int e = 0; e < 8; ++e) log_decay[r][e] = exp_flushed(log_decay[r][e]);
    fused::store8(&decay[token][m], log_decay[r]);
    fused::store8(&grads[token][m], grad[r]);
  }
  __syncthreads();
  for (int m = threadIdx.x; m < M; m += blockDim.x) {
    float reach = 1;
    for (int token = 0; token < kTokens; ++token) {
      reach *= decay[token][m];
      reaching[token][m] = grads[token][m] * reach;
    }
  }
  // B's columns j and 15 - j (17 rows between them), each thread a slice of the slots: s_j decayed token by
  // token down its column, against each row's dz.
#pragma unroll
  for (int side = 0; side < 2; ++side) {
    const int j = side == 0 ? pair : kTokens - 1 - pair;
    for (int t = j; t < kTokens; ++t) {
      float grad_t[kSlotsAThread];
      load_slots(&grads[t][first_slot], grad_t);
      float sum = 0;
#pragma unroll
      for (int i = 0; i < kSlotsAThread; ++i) sum = fmaf(grad_t[i], slot[side][i], sum);
      partial[t][j][slice] = sum;
      if (t + 1 < kTokens) {
        float decay_t[kSlotsAThread];
        load_slots(&decay[t + 1][first_slot], decay_t);
#pragma unroll
        for (int i = 0; i < kSlotsAThread; ++i) slot[side][i] *= decay_t[i];
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kTokens * kTokens; i += blockDim.x) {
    const int t = i / kTokens, j = i % kTokens;
    float sum = 0;
    if (j <= t) {
#pragma unroll
      for (int x = 0; x < kQueryGradSlices; ++x) sum += partial[t][j][x];
    }
    scores[t][j] = sum;
  }
  __syncthreads();

  using Op = QueryGradOp<T>;
  const int tiles = a.K / 8, per_warp = (tiles + kQueryGradWarps - 1) / kQueryGradWarps;
  const int warp = threadIdx.x / 32, n0 = warp * per_warp * 8;
  const int count = min(per_warp, tiles - warp * per_warp);
  if (count <= 0) return;
  float acc[kQueryGradMaxTiles][4] = {};
#pragma unroll
  for (int m0 = 0; m0 < M; m0 += 16)
    chunk::mma_k16<Op, kQueryGradMaxTiles, chunk::Exact::both>(
        acc, count, 0, n0, m0, [&](int t, int m) { return reaching[t][m]; },
        [&](int m, int n) { return state[m * a.K + n]; });
  constexpr chunk::Exact kKeys = std::is_same_v<T, __half> ? chunk::Exact::both : chunk::Exact::a;
  chunk::mma_k16<Op, kQueryGradMaxTiles, kKeys>(
      acc, count, 0, n0, 0, [&](int t, int j) { return scores[t][j]; },
      [&](int j, int n) { return j < tokens ? to_float(keys[j * key_stride + n]) : 0.0f; });
  chunk::for_each_pair(acc, count, 0, n0, [&](int t, int n, float& first_value, float& second_value) {
    if (t < tokens)
      store_pair(query_grads + t * key_stride + n, a.scale * first_value, a.scale * second_value);
  });
}

// dq of tokens [t0, t0 + length) of every sequence (t0 a whole chunk) from dz of those tokens and pass 1's
// checkpoints (`checkpoints`, Hk^T, [B*H, ceil(T / kChunk), M, K]); K in {16, ..., 256}. Built for M = 128
// only: the one slot count whose fp32 fwd+bwd takes these scans rather than the chunk form (where the chunk
// form's blocks do not fit: kernels/notes/gsa.md, version 61; tests/kernels/gsa_fused_plan_test.cpp).
template <class T>
void launch_query_grads(const Problem& p, const float* checkpoints, const T* s, const T* f, const T* k,
                        const T* dz, T* dq, int t0, int length, cudaStream_t stream) {
  if (p.M != kScanBackwardSlots)
    throw std::logic_error("gsa fused_recurrent: the scans' query gradients are built for M = 128 only");
  const int heads = int(p.B * p.H), chunks = (length + kQueryGradTokens - 1) / kQueryGradTokens;
  const QueryGradShape shape{
      int(p.T), int(p.H), int(p.K),      heads, int((p.T + kQueryGradTokens - 1) / kQueryGradTokens),
      t0,       length,   float(p.scale)};
  const dim3 grid(unsigned(std::int64_t(chunks) * heads)), block(kQueryGradWarps * 32);
  query_grads_kernel<T, kScanBackwardSlots><<<grid, block, 0, stream>>>(checkpoints, s, f, k, dz, dq, shape);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa::gla_passes
