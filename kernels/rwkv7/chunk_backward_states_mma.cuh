// rwkv7 chunk backward, step 1 on the tensor cores (bf16 inputs): chunk_backward_states.cuh's reverse scan
// with the same outputs, its products as mma.sync tiles, in the shape of the forward's state pass
// (chunk_states_mma.cuh) with other operands. A warp holds 16 rows (keys) of the state gradient dS for the
// block's COLS value columns as fp32 accumulators; per chunk, from the last:
//   dV_new = A_qb^T dO + b~ dS                        (b~: b decayed to the chunk's end; C x COLS tiles)
//   dS    <- e^{Γ_L} dS + (q e^Γ)^T dO + W^T dV_new
// A_qb, W, q e^Γ and b~ (to its step's end) are the forward's own bf16 planes (high and low parts), dO is
// bf16 already, and dS^T (decayed to each step's end, for that step's rows of b~) and dV_new are split in two
// parts where they are made: every product keeps about 16 bits of its fp32 operands, as the forward's passes
// do (the state gradient and dV_new are two of the backward intermediates that need more than bf16;
// kernels/notes/rwkv7_chunk.md).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/rwkv7/chunk_backward_states.cuh"
#include "kernels/rwkv7/chunk_states_mma.cuh"
#include "kernels/rwkv7/chunk_states_plan.h"

namespace flabench::rwkv7 {

// One chunk's operands in shared memory (their sizes and the block's: chunk_states_plan.h, mma_dstate_*).
struct DStatePlanes {
  __nv_bfloat16 *qb, *W, *qg, *bg;  // the high planes; each low plane follows its high one
  float* decay;
  __nv_bfloat16* dout;
  int qb_plane, plane;  // elements from a high plane to its low one
  __device__ DStatePlanes(char* base, int C, int K, int cols)
      : qb_plane(C * padded_row(C, 2)), plane(C * padded_row(K, 2)) {
    qb = reinterpret_cast<__nv_bfloat16*>(base), W = qb + 2 * qb_plane, qg = W + 2 * plane,
    bg = qg + 2 * plane;
    decay = reinterpret_cast<float*>(bg + 2 * plane);
    dout = reinterpret_cast<__nv_bfloat16*>(decay + (C / kStep) * K);
  }
};

// Issues the copies of a head's chunks' operands (DStatePlanes) by the kBlockThreads copying threads
// (`thread` numbers them): W, q e^Γ and b~ by PlanePieces (the forward state pass's copies), A_qb's planes,
// the steps' decays and dO (issue_token_rows).
template <int K, int COLS, int kBlockThreads>
struct DStateFetch {
  PlanePieces<K, kBlockThreads> planes;
  int thread;                // the thread's number among the copying ones
  std::int64_t first_block;  // the head's first chunk's, (b H + h) chunks
  std::int64_t first_token;  // the head's first token's element of dO, column v0

  __device__ DStateFetch(const ChunkDims& d, int b, int h, int v0, int thread_)
      : planes(thread_), thread(thread_) {
    first_block = std::int64_t(b * d.H + h) * d.chunks;
    first_token = token_row(d, b, 0, h) * d.V + v0;
  }

  __device__ void issue(const DStatePlanes& to, const GradPointers<__nv_bfloat16>& g, const IntraOutputs& in,
                        const ChunkDims& d, int n) const {
    const int C = d.C, L = min(C, d.T - n * C);
    const std::int64_t block = first_block + n;
    // A_qb as [2][C][C] bf16 planes a chunk: 2C rows
    copy_rows<kBlockThreads>(C / 8, to.qb, padded_row(C, 2) * 2,
                             reinterpret_cast<const __nv_bfloat16*>(in.qb) + block * 2 * C * C, C * 2, 2 * C,
                             thread);
    planes.issue(C, block, {to.W, to.qg, to.bg}, {in.w, in.qg, in.bg});
    issue_decays(to.decay, in.decay, C, K, block, thread);
    const std::int64_t token_stride = std::int64_t(d.H) * d.V;
    issue_token_rows<COLS, kBlockThreads>(to.dout, g.d_o + first_token + n * C * token_stride, token_stride,
                                          C, L, thread);
  }
};

// kCopyWarps: copy warps beside the scan's (chunk_states_feed.cuh; mma_state_copy_warps picks). At K = 128
// without them two blocks an SM where one operand buffer lets them (the forward state pass's bounds, v49).
template <int KQ, int COLS, bool kCopyWarps>
__global__ void __launch_bounds__(mma_state_threads(KQ, kCopyWarps), KQ == 8 ? (kCopyWarps ? 1 : 2) : 0)
    rwkv7_chunk_dstates_mma_kernel(GradPointers<__nv_bfloat16> g, ChunkDims d, ChunkRange range,
                                   IntraOutputs in, BackwardRegions out, int buffers) {
  using Op = __nv_bfloat16;
  constexpr int K = 16 * KQ, NT = COLS / 8, KP = padded_row(K, 2), VP = padded_row(COLS, 2);
  constexpr int kScanThreads = mma_scan_threads(KQ);
  using Feed = StateFeed<kScanThreads, kCopyWarps>;
  extern __shared__ __align__(16) float smem[];
  const int C = d.C, CQ = padded_row(C, 2), steps = C / kStep;
  // dS^T [COLS][KP] at the chunk's end decayed to each step's end, [steps][2][COLS][KP] (two planes a step)
  Op* dS = reinterpret_cast<Op*>(smem);
  Op* dvn = dS + steps * 2 * COLS * KP;  // dV_new [C][VP], then its low plane
  char* operands = reinterpret_cast<char*>(dvn + 2 * C * VP);
  const int operand_bytes = mma_dstate_operand_bytes(C, K, COLS);
  const int bh = blockIdx.y, b = bh / d.H, h = bh % d.H, v0 = blockIdx.x * COLS;
  const int warp = threadIdx.x / 32, m0 = 16 * warp;               // the warp's keys m0 .. m0 + 15
  const auto chunk_of = [&](int i) { return range.end - 1 - i; };  // the i-th chunk the scan visits
  const auto buffer = [&](int i) {
    return DStatePlanes(operands + (i & (buffers - 1)) * operand_bytes, C, K, COLS);
  };
  const DStateFetch<K, COLS, kScanThreads> copies(d, b, h, v0, Feed::copy_thread());
  const auto fetch = [&](int i) { copies.issue(buffer(i), g, in, d, chunk_of(i)); };
  const Feed feed{range.count(), buffers};
  if (Feed::is_copier()) return feed.run_copier(fetch);

  float acc[NT][4];
  const float* entry = dstate_entry(g, d, out, range, bh);
  chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float& first, float& second) {
    float2 x = make_float2(0.0f, 0.0f);
    if (entry) x = *reinterpret_cast<const float2*>(entry + std::int64_t(key) * d.V + v0 + col);
    first = x.x, second = x.y;
  });

  for (int i = 0; i < range.count(); ++i) {
    const int n = chunk_of(i);
    const std::int64_t block = std::int64_t(bh) * d.chunks + n;
    feed.acquire(i, fetch);
    const DStatePlanes x = buffer(i);
    float* dstate = out.dstates + block * K * d.V + v0;
    chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float first, float second) {
      *reinterpret_cast<float2*>(dstate + std::int64_t(key) * d.V + col) = make_float2(first, second);
    });
    // dS^T times the decay from each step's end to the chunk's end, per key (b~'s rows are decayed to their
    // step's end only; the factor goes with dS, K x COLS a step, not with b~, C x K); the chunk's whole
    // decay left in `decay` for the update
    const chunk::Lane lane;
    float decay[2] = {1.0f, 1.0f};  // keys m0 + group and m0 + group + 8, the thread's accumulator rows
    const auto decay_of = [&](int key) { return key < m0 + 8 ? decay[0] : decay[1]; };
    for (int s = steps - 1; s >= 0; --s) {
      Op* to = dS + s * 2 * COLS * KP;
      // (by stmatrix: two 2-byte stores a value before, 22% of the split's instructions; v55)
      store_parts_transposed<NT>(to, COLS * KP, KP, m0, acc, decay[0], decay[1]);
      decay[0] *= x.decay[s * K + m0 + lane.group], decay[1] *= x.decay[s * K + m0 + lane.group + 8];
    }
    Feed::sync();

    // dV_new = A_qb^T dO + b~ dS, a 16 x 8 tile at a time; the products with a low part in a sum of their own
    for (int tile = warp; tile < (C / 16) * NT; tile += KQ) {
      const int i0 = 16 * (tile / NT), c0 = 8 * (tile % NT);
      float high[1][4] = {}, low[1][4] = {};
      for (int k0 = 0; k0 < C; k0 += 16) {
        std::uint32_t a[1][4], a_low[1][4];
        chunk::a_stored_km<Op>(a[0], x.qb, CQ, i0, k0);
        chunk::a_stored_km<Op>(a_low[0], x.qb + x.qb_plane, CQ, i0, k0);
        chunk::mma_b_stored_kn<Op, 1, 1>(high, 1, a, x.dout, VP, k0, c0);
        chunk::mma_b_stored_kn<Op, 1, 1>(low, 1, a_low, x.dout, VP, k0, c0);
      }
      const Op* step_dS = dS + (i0 / kStep) * 2 * COLS * KP;
#pragma unroll
      for (int k0 = 0; k0 < K; k0 += 16) {
        std::uint32_t a[4], a_low[4];
        chunk::a_stored_mk<Op>(a, x.bg, KP, i0, k0);
        chunk::a_stored_mk<Op>(a_low, x.bg + x.plane, KP, i0, k0);
        chunk::mma_b_stored_nk<Op, 1>(high, 1, a, step_dS, KP, k0, c0);
        chunk::mma_b_stored_nk<Op, 1>(low, 1, a_low, step_dS, KP, k0, c0);
        chunk::mma_b_stored_nk<Op, 1>(low, 1, a, step_dS + COLS * KP, KP, k0, c0);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) high[0][r] += low[0][r];
      float* to = out.dvnew + block * C * d.V + v0;
      chunk::for_each_pair(high, 1, i0, c0, [&](int row, int col, float first, float second) {
        store_part_pairs(dvn + row * VP + col, C * VP, first, second);
        *reinterpret_cast<float2*>(to + std::int64_t(row) * d.V + col) = make_float2(first, second);
      });
    }
    Feed::sync();

    // dS <- e^{Γ_L} dS + (q e^Γ)^T dO + W^T dV_new, a 16-token step a k-step
    chunk::for_each_accumulator(acc, NT, m0, 0, [&](int key, int, float& value) { value *= decay_of(key); });
    float low[NT][4] = {};
    for (int j0 = 0; j0 < C; j0 += kStep)
      add_state_products(acc, low, x.qg, x.W, x.plane, KP, x.dout, dvn, C * VP, VP, m0, j0);
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[t][r] += low[t][r];
    Feed::sync();  // this buffer is refilled after it, dS^T and dV_new remade
    feed.release(i, fetch);
  }
  float* exit = dstate_exit(g, d, out, range, bh) + v0;
  chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float first, float second) {
    *reinterpret_cast<float2*>(exit + std::int64_t(key) * d.V + col) = make_float2(first, second);
  });
}

}  // namespace flabench::rwkv7
