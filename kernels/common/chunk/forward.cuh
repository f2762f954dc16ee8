// The chunk variant's forward, version 2: three kernels, the products on the tensor cores (bf16 and fp16
// inputs; fp32 inputs on the CUDA cores, kernels/common/chunk/warp_mma.cuh).
//   decays       one block per (batch, head, chunk), all in parallel: the chunk's log decays summed per
//                channel (whole) and k e^{decay after it to the chunk's end}, the state pass's operand.
//   state pass   one block per (batch, head, 32 key channels, 32 values), chunks in order, the state tile in
//                the warps' accumulators: save it for the output pass, S = e^{whole} S + (k e^{to end})^T v.
//                Nothing but that product is left in the sequential loop, and the next chunk's operands are
//                loaded into registers while this one computes.
//   output pass  one block per (batch, head, chunk, 64 values): o = scale ((q e^{seen}) S0 + A v + bonus),
//                A_is = sum_c q_ic k_sc e^{G_i - G_s}. A's blocks between different 16-token sub-chunks are
//                products of two factors <= 1 (q to its sub-chunk's start, k to its sub-chunk's end, and the
//                whole sub-chunks between on q's side); the diagonal 16 x 16 blocks take the exponent per
//                element in fp32. No exponent is positive, so log decays of -40 neither overflow nor lose
//                the nearest tokens' terms (kernels/notes/chunk.md).
#pragma once

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

constexpr int kDecayThreads = 256;
constexpr int kStateThreads = 128;  // 4 warps, each a 16 x 16 piece of the 32 x 32 state tile
constexpr int kStateTile = 32;
constexpr int kOutputThreads = 256;  // 8 warps
constexpr int kOutputValues = 64;
constexpr int kPad = 4;  // floats added to a staged row: rows 4 banks apart keep fragment reads conflict-free

__host__ __device__ inline int decay_pass_floats(int C, int K) {
  return Decays::floats(C, K);
}
__host__ __device__ inline int output_pass_floats(int C, int K) {
  return Decays::floats(C, K) + 2 * C * (K + kPad) + (C + K) * (kOutputValues + kPad) + C * (C + kPad) + C;
}

template <class Form, class T>
__global__ void __launch_bounds__(kDecayThreads) chunk_decay_kernel(Pointers<T> p, Dims d, Workspace ws) {
  extern __shared__ float smem[];
  const int K = d.K, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y;
  const int t0 = n * C, length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, K);
  dec.build(GlobalGate<Form, T>{p.g, d, b, h, t0}, length, Form::value.output_before_update);
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  T* keys = reinterpret_cast<T*>(ws.keys_to_end) + chunk * C * K;
  for (int idx = threadIdx.x; idx < C * K; idx += kDecayThreads) {
    const int t = idx / K, c = idx % K;
    keys[idx] = from_float<T>(
        t < length ? to_float(p.k[d.row(b, h, t0 + t) * K + c]) * __expf(dec.after(t, dec.subs, c)) : 0.f);
  }
  for (int c = threadIdx.x; c < K; c += kDecayThreads) ws.whole[chunk * K + c] = dec.whole(c);
}

template <class Form, class T>
__global__ void __launch_bounds__(kStateThreads) chunk_state_kernel(Pointers<T> p, Dims d, Workspace ws) {
  // Operands move in 16-byte vectors: kVec elements, kRow vectors to a tile's row of 32.
  constexpr int kTile = kStateTile, kVec = 16 / sizeof(T), kRow = kTile / kVec,
                kLoads = kMaxChunk * kRow / kStateThreads;
  __shared__ uint4 keys_tile[kMaxChunk * kRow];    // [C][32] of T: k e^{decay after it to the chunk's end}
  __shared__ uint4 values_tile[kMaxChunk * kRow];  // [C][32] of T
  const T* keys = reinterpret_cast<const T*>(keys_tile);
  const T* values = reinterpret_cast<const T*>(values_tile);
  const int K = d.K, V = d.V, C = d.C, chunks = d.chunks();
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H;
  const int c0 = blockIdx.y * kTile, j0 = blockIdx.z * kTile;
  const int warp = threadIdx.x / 32, m0 = (warp / 2) * 16, n0 = (warp % 2) * 16;
  const Lane lane;
  const T* keys_to_end = reinterpret_cast<const T*>(ws.keys_to_end);

  uint4 next_k[kLoads], next_v[kLoads];
  float next_whole[2];
  const auto fetch = [&](int n) {
    const int t0 = n * C, length = min(C, d.T - t0);
    const std::int64_t chunk = std::int64_t(bh) * chunks + n;
#pragma unroll
    for (int e = 0; e < kLoads; ++e) {
      const int idx = threadIdx.x + e * kStateThreads, t = idx / kRow, col = (idx % kRow) * kVec;
      next_k[e] = t < C && c0 + col < K
                      ? *reinterpret_cast<const uint4*>(keys_to_end + (chunk * C + t) * K + c0 + col)
                      : uint4{};
      next_v[e] = t < length && j0 + col < V
                      ? *reinterpret_cast<const uint4*>(p.v + d.row(b, h, t0 + t) * V + j0 + col)
                      : uint4{};
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int c = c0 + m0 + lane.group + 8 * r;
      next_whole[r] = c < K ? ws.whole[chunk * K + c] : 0.f;
    }
  };

  const auto in_tile = [&](int row, int col) { return c0 + row < K && j0 + col < V; };
  const auto at = [&](int row, int col) { return std::int64_t(c0 + row) * V + j0 + col; };
  float S[2][4];
  for_each_accumulator(S, 2, m0, n0, [&](int row, int col, float& s) {
    s = in_tile(row, col) ? p.h0[std::int64_t(bh) * K * V + at(row, col)] : 0.f;
  });
  fetch(0);
  for (int n = 0; n < chunks; ++n) {
    __syncthreads();  // the previous chunk's readers are done with the tiles
#pragma unroll
    for (int e = 0; e < kLoads; ++e) {
      const int idx = threadIdx.x + e * kStateThreads;
      if (idx < C * kRow) keys_tile[idx] = next_k[e], values_tile[idx] = next_v[e];
    }
    const float decay[2] = {__expf(next_whole[0]), __expf(next_whole[1])};
    __syncthreads();
    if (n + 1 < chunks) fetch(n + 1);  // in flight while this chunk computes
    float* saved = ws.states + (std::int64_t(bh) * chunks + n) * K * V;
    for_each_accumulator(S, 2, m0, n0, [&](int row, int col, float& s) {
      if (in_tile(row, col)) saved[at(row, col)] = s;
      s *= decay[row - m0 < 8 ? 0 : 1];
    });
    for (int k0 = 0; k0 < C; k0 += 16)
      mma_k16<T>(
          S, 2, m0, n0, k0, [&](int c, int s) { return to_float(keys[s * kTile + c]); },
          [&](int s, int j) { return to_float(values[s * kTile + j]); });
  }
  for_each_accumulator(S, 2, m0, n0, [&](int row, int col, float& s) {
    if (in_tile(row, col)) p.ht[std::int64_t(bh) * K * V + at(row, col)] = s;
  });
}

template <class Form, class T>
__global__ void __launch_bounds__(kOutputThreads)
    chunk_output_kernel(Pointers<T> p, Dims d, const float* states) {
  extern __shared__ float smem[];
  constexpr int kVT = kOutputValues, kLdV = kVT + kPad;
  const int K = d.K, V = d.V, C = d.C, ldK = K + kPad, ldC = C + kPad;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, j0 = blockIdx.z * kVT;
  const int t0 = n * C, length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, K);
  float* q = smem + Decays::floats(C, K);  // [C][K + pad]: q, then q e^{seen within its sub-chunk}
  float* k = q + C * ldK;      // [C][K + pad]: k, then k e^{decay after it to its sub-chunk's end}
  float* v = k + C * ldK;      // [C][64 + pad]
  float* S0 = v + C * kLdV;    // [K][64 + pad]: the state before the chunk
  float* A = S0 + K * kLdV;    // [C][C + pad]
  float* bonus = A + C * ldC;  // [C]: rwkv6's q_i . (u k_i)
  stage_tile(p.q, d, b, h, t0, length, C, K, 0, K, q, ldK);
  stage_tile(p.k, d, b, h, t0, length, C, K, 0, K, k, ldK);
  stage_tile(p.v, d, b, h, t0, length, C, V, j0, kVT, v, kLdV);
  const float* saved = states + (std::int64_t(bh) * d.chunks() + n) * K * V;
  for (int idx = threadIdx.x; idx < K * kVT; idx += kOutputThreads) {
    const int c = idx / kVT, j = j0 + idx % kVT;
    S0[c * kLdV + idx % kVT] = j < V ? saved[std::int64_t(c) * V + j] : 0.f;
  }
  dec.build(GlobalGate<Form, T>{p.g, d, b, h, t0}, length, Form::value.output_before_update);

  intra_chunk_scores<Form, T>(dec, q, k, ldK, K, C, A, ldC, Form::value.bonus ? p.u + h * K : nullptr, bonus);
  const int warp = threadIdx.x / 32;

  // o: each warp a 16-row strip of (C / 16) 8-column tiles.
  constexpr int kMaxTiles = kMaxChunk / kSubChunk;
  const int strips = C / kSubChunk, tiles = strips, m0 = (warp % strips) * kSubChunk,
            n0 = (warp / strips) * 8 * tiles;
  float acc[kMaxTiles][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16)
    mma_k16<T, kMaxTiles, Exact::b>(
        acc, tiles, m0, n0, k0,
        [&](int i, int c) { return q[i * ldK + c] * __expf(dec.prefix[(i / kSubChunk) * K + c]); },
        [&](int c, int j) { return S0[c * kLdV + j]; });
  for (int k0 = 0; k0 < C; k0 += 16)
    mma_k16<T, kMaxTiles, Exact::a>(
        acc, tiles, m0, n0, k0, [&](int i, int s) { return A[i * ldC + s]; },
        [&](int s, int j) { return v[s * kLdV + j]; });
  for_each_accumulator(acc, tiles, m0, n0, [&](int i, int j, float& o) {
    if (i >= length || j0 + j >= V) return;
    if constexpr (Form::value.bonus) o += bonus[i] * v[i * kLdV + j];
    p.o[d.row(b, h, t0 + i) * V + j0 + j] = from_float<T>(d.scale * o);
  });
}

}  // namespace flabench::chunk
