// rwkv7 chunk, step 2 on the tensor cores (bf16 inputs): chunk_states.cuh's scan with the same outputs, its
// products as mma.sync tiles. A warp holds 16 state rows (keys) of the block's COLS value columns as fp32
// accumulators; per chunk
//   V_new = U + W S                          (C x COLS tiles over the warps)
// then per 16-token step, one k-step of the tensor cores:
//   S <- D S + k~^T v + b~^T V_new           (D per row of the accumulators)
// Every fp32 operand goes in as two bf16 parts, so each product keeps about 16 bits of its operands against
// the CUDA-core scan's 24: W, k~ and b~ arrive so from intra (store_operand_pair), S^T and V_new are split
// once where they are made, and every fragment is read whole by ldmatrix (padded shared rows); v is bf16
// already. Rows past the sequence's end are zero: intra's (its inputs staged as zero there) and v's (written
// here). Kernels/notes/rwkv7_chunk.md, versions 13, 15 and 19.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/rwkv7/chunk_states.cuh"
#include "kernels/rwkv7/chunk_states_feed.cuh"

namespace flabench::rwkv7 {

// One chunk's operands in shared memory (chunk_states_plan.h, mma_operand_bytes): W, k~, b~ as high and low
// planes [C][padded_row(K, 2)], the steps' decays, U, v [C][padded_row(cols, 2)].
struct PlaneOperands {
  __nv_bfloat16 *W, *kg, *bg;  // the high planes; each low plane follows its high one
  float *decay, *U;
  __nv_bfloat16* v;
  int plane;  // elements from a high plane to its low one
  __device__ PlaneOperands(char* base, int C, int K, int cols) : plane(C * padded_row(K, 2)) {
    W = reinterpret_cast<__nv_bfloat16*>(base), kg = W + 2 * plane, bg = kg + 2 * plane;
    decay = reinterpret_cast<float*>(bg + 2 * plane), U = decay + (C / kStep) * K;
    v = reinterpret_cast<__nv_bfloat16*>(U + C * cols);
  }
};

// A thread's 16-byte pieces of three [2][C][K] bf16 plane regions a chunk (high plane, then low: 2C rows of K
// in global memory, of padded_row(K, 2) in shared memory), its offsets worked out once for the block: the
// per-piece 64-bit addresses, rebuilt in loops whose trip count was the thread's, were 214 of a warp's 524
// instructions a chunk in the forward's state pass at 1,24576,16,64 (v39). A pass of the kBlockThreads
// copying threads (`thread` numbers them) copies 16 rows of each region, the same for every thread. The
// forward's state pass copies W, k~ and b~ so, the backward's reverse scan W, q e^Γ and b~.
template <int K, int kBlockThreads>
struct PlanePieces {
  static constexpr int KP = padded_row(K, 2);
  static constexpr int kPieces = K / 8, kRows = kBlockThreads / kPieces;
  static_assert(kRows == 16, "a warp a 16-key group: 32 KQ threads, 2 KQ pieces a row");
  int from, at;  // the thread's element of a chunk's plane in global and in shared memory

  __device__ explicit PlanePieces(int thread) {
    const int row = thread / kPieces, piece = 8 * (thread % kPieces);
    from = row * K + piece, at = row * KP + piece;
  }

  // Chunk `block`'s planes of the three regions (each [chunks][2][C][K]) into `to` (each [2][C][KP]).
  __device__ void issue(int C, std::int64_t block, __nv_bfloat16* const (&to)[3],
                        const float* const (&regions)[3]) const {
    using bf16 = __nv_bfloat16;
    const std::int64_t first = block * 2 * C * K + from;
    const bf16 *r0 = reinterpret_cast<const bf16*>(regions[0]) + first,
               *r1 = reinterpret_cast<const bf16*>(regions[1]) + first,
               *r2 = reinterpret_cast<const bf16*>(regions[2]) + first;
    for (int pass = 0; pass < C / 8; ++pass) {  // 2C rows
      const int f = pass * kRows * K, a = at + pass * kRows * KP;
      cp_async(to[0] + a, r0 + f, 16);
      cp_async(to[1] + a, r1 + f, 16);
      cp_async(to[2] + a, r2 + f, 16);
    }
  }
};

// The steps' decays of chunk `block`, [C / 16][K] floats in a row, a 16-byte piece a copying thread.
__device__ __forceinline__ void issue_decays(float* to, const float* decay, int C, int K, std::int64_t block,
                                             int thread) {
  if (thread < C * K / 64) cp_async(to + 4 * thread, decay + block * (C / kStep) * K + 4 * thread, 16);
}

// A chunk's L token rows of COLS bf16 columns (`first`: its first token's, rows `token_stride` elements
// apart) into shared rows of padded_row(COLS, 2), a 16-byte piece a copying thread; the rows from L to C
// zeroed (ldmatrix reads whole 16-token steps). The forward's v, the backward's dO.
template <int COLS, int kBlockThreads>
__device__ void issue_token_rows(__nv_bfloat16* to, const __nv_bfloat16* first, std::int64_t token_stride,
                                 int C, int L, int thread) {
  constexpr int kPieces = COLS / 8, VP = padded_row(COLS, 2);
  for (int e = thread; e < L * kPieces; e += kBlockThreads) {
    const int i = e / kPieces, c = 8 * (e % kPieces);
    cp_async(to + i * VP + c, first + i * token_stride + c, 16);
  }
  for (int e = thread; e < (C - L) * COLS; e += kBlockThreads)
    to[(L + e / COLS) * VP + e % COLS] = __float2bfloat16_rn(0.0f);
}

// Issues the copies of a head's chunks' operands (PlaneOperands) by the kBlockThreads copying threads
// (`thread` numbers them): W, k~ and b~ by PlanePieces, the steps' decays, U and v (issue_token_rows) a
// 16-byte piece a thread (or a few).
template <int K, int COLS, int kBlockThreads>
struct PlaneFetch {
  PlanePieces<K, kBlockThreads> planes;
  int v0;                    // the block's first value column
  int thread;                // the thread's number among the copying ones
  std::int64_t first_block;  // the head's first chunk's, (b H + h) chunks
  std::int64_t first_token;  // the head's first token's element of v, column v0

  __device__ PlaneFetch(const ChunkDims& d, int b, int h, int v0_, int thread_)
      : planes(thread_), v0(v0_), thread(thread_) {
    first_block = std::int64_t(b * d.H + h) * d.chunks;
    first_token = token_row(d, b, 0, h) * d.V + v0;
  }

  __device__ void issue(const PlaneOperands& to, const Pointers<__nv_bfloat16>& p, const IntraOutputs& in,
                        const ChunkDims& d, int n) const {
    using bf16 = __nv_bfloat16;
    const int C = d.C;
    const std::int64_t block = first_block + n;
    planes.issue(C, block, {to.W, to.kg, to.bg}, {in.w, in.kg, in.bg});
    issue_decays(to.decay, in.decay, C, K, block, thread);
    constexpr int kUPieces = COLS / 4;  // a row's 16-byte pieces
    const float* u = in.u + block * C * d.V + v0;
    for (int e = thread; e < C * kUPieces; e += kBlockThreads) {
      const int i = e / kUPieces, c = 4 * (e % kUPieces);
      cp_async(to.U + i * COLS + c, u + i * d.V + c, 16);
    }
    const std::int64_t token_stride = std::int64_t(d.H) * d.V;
    issue_token_rows<COLS, kBlockThreads>(to.v, p.v + first_token + n * C * token_stride, token_stride, C,
                                          min(C, d.T - n * C), thread);
  }
};

// One 16-token k-step of a state update on the tensor cores, the warp's keys m0 .. m0 + 15 over its NT tiles
// of columns: acc += A1_h^T B1 + A2_h^T B2_h and low += A1_l^T B1 + A2_l^T B2_h + A2_h^T B2_l, where A1, A2
// are [token][key] operands in two bf16 planes (`plane` elements from high to low, rows `lda` apart), B1 is
// exact bf16 [token][column] and B2 two planes (`b2_plane` apart), rows `ldb` apart. The products with a low
// part go to a sum of their own, so the step's chain is 3 products deep, not 5. The forward's state update
// (k~, v; b~, V_new) and the backward's (q e^Γ, dO; W, dV_new, chunk_backward_states_mma.cuh) are this step.
template <int NT>
__device__ __forceinline__ void add_state_products(float (&acc)[NT][4], float (&low)[NT][4],
                                                   const __nv_bfloat16* a1, const __nv_bfloat16* a2,
                                                   int plane, int lda, const __nv_bfloat16* b1,
                                                   const __nv_bfloat16* b2, int b2_plane, int ldb, int m0,
                                                   int j0) {
  using Op = __nv_bfloat16;
  std::uint32_t a1h[1][4], a1l[1][4], a2h[1][4], a2l[1][4];
  chunk::a_stored_km<Op>(a1h[0], a1, lda, m0, j0);
  chunk::a_stored_km<Op>(a1l[0], a1 + plane, lda, m0, j0);
  chunk::a_stored_km<Op>(a2h[0], a2, lda, m0, j0);
  chunk::a_stored_km<Op>(a2l[0], a2 + plane, lda, m0, j0);
  chunk::mma_b_stored_kn<Op, NT, 1>(acc, NT, a1h, b1, ldb, j0, 0);
  chunk::mma_b_stored_kn<Op, NT, 1>(low, NT, a1l, b1, ldb, j0, 0);
  chunk::mma_b_stored_kn<Op, NT, 1>(acc, NT, a2h, b2, ldb, j0, 0);
  chunk::mma_b_stored_kn<Op, NT, 1>(low, NT, a2l, b2, ldb, j0, 0);
  chunk::mma_b_stored_kn<Op, NT, 1>(low, NT, a2h, b2 + b2_plane, ldb, j0, 0);
}

// At K = 128 two blocks an SM where one operand buffer lets them (state_buffers: 4,4096,16,128), so 128
// registers; ptxas took 174 there once the copies' loops no longer diverged (v39). Elsewhere no minimum (0).
// kCopyWarps: copy warps beside the scan's (chunk_states_feed.cuh; mma_state_copy_warps picks), a block an SM
// at K = 128 then.
template <int KQ, int COLS, bool kCopyWarps>
__global__ void __launch_bounds__(mma_state_threads(KQ, kCopyWarps), KQ == 8 ? (kCopyWarps ? 1 : 2) : 0)
    rwkv7_chunk_states_mma_kernel(Pointers<__nv_bfloat16> p, ChunkDims d, ChunkRange range, IntraOutputs in,
                                  float* states, float* sa, bool every_checkpoint, int buffers) {
  using Op = __nv_bfloat16;
  constexpr int K = 16 * KQ, NT = COLS / 8, KP = padded_row(K, 2), VP = padded_row(COLS, 2);
  constexpr int kScanThreads = mma_scan_threads(KQ);
  using Feed = StateFeed<kScanThreads, kCopyWarps>;
  extern __shared__ __align__(16) float smem[];
  const int C = d.C;
  Op* S = reinterpret_cast<Op*>(smem);  // S^T [COLS][KP], the state at the chunk's start; its low plane after
  Op* vnew = S + 2 * COLS * KP;         // V_new [C][VP], then its low plane
  char* operands = reinterpret_cast<char*>(vnew + 2 * C * VP);
  const int operand_bytes = mma_operand_bytes(C, K, COLS);
  const int bh = blockIdx.y, b = bh / d.H, h = bh % d.H, v0 = blockIdx.x * COLS;
  const int warp = threadIdx.x / 32, m0 = 16 * warp;  // the warp's keys m0 .. m0 + 15
  const std::int64_t head_state = std::int64_t(bh) * d.checkpoints * K * d.V;
  const auto buffer = [&](int i) {  // the range's chunk i's (buffers is 1 or 2)
    return PlaneOperands(operands + (i & (buffers - 1)) * operand_bytes, C, K, COLS);
  };
  const PlaneFetch<K, COLS, kScanThreads> copies(d, b, h, v0, Feed::copy_thread());
  const auto fetch = [&](int i) { copies.issue(buffer(i), p, in, d, range.first + i); };
  const Feed feed{range.count(), buffers};
  if (Feed::is_copier()) return feed.run_copier(fetch);
  float acc[NT][4];
  const auto store_state = [&](float* to, std::int64_t ld) {  // [K][ld] floats from the block's first column
    chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float first, float second) {
      *reinterpret_cast<float2*>(to + key * ld + col) = make_float2(first, second);
    });
  };
  const auto keep_state = [&] {
    chunk::for_each_accumulator(
        acc, NT, m0, 0, [&](int key, int col, float x) { store_parts(S + col * KP + key, COLS * KP, x); });
  };

  const StateEnds ends(p, d, range, states, bh, K);
  chunk::for_each_pair(acc, NT, m0, 0, [&](int key, int col, float& first, float& second) {
    const float2 x = *reinterpret_cast<const float2*>(ends.start + std::int64_t(key) * d.V + v0 + col);
    first = x.x, second = x.y;
  });
  keep_state();

  for (int i = 0; i < range.count(); ++i) {
    const int n = range.first + i, t0 = n * C, L = min(C, d.T - t0), steps = (L + kStep - 1) / kStep;
    feed.acquire(i, fetch);
    const PlaneOperands x = buffer(i);

    // V_new = U + W S, a 16 x 8 tile at a time. The products of high parts and those with a low part go to
    // separate sums, and the k-steps alternate between two pairs of them: the chain a quarter as deep.
    for (int tile = warp; tile < (C / 16) * NT; tile += KQ) {
      const int i0 = 16 * (tile / NT), c0 = 8 * (tile % NT);
      float sums[4][1][4] = {};  // (even, odd k-step) x (high, low)
      chunk::for_each_accumulator(sums[0], 1, i0, c0,
                                  [&](int i, int col, float& value) { value = x.U[i * COLS + col]; });
      const auto add = [&](float(&high)[1][4], float(&low)[1][4], int k0) {
        std::uint32_t w[2][4];
        chunk::a_stored_mk<Op>(w[0], x.W, KP, i0, k0);
        chunk::a_stored_mk<Op>(w[1], x.W + x.plane, KP, i0, k0);
        chunk::mma_b_stored_nk<Op, 1>(high, 1, w[0], S, KP, k0, c0);
        chunk::mma_b_stored_nk<Op, 1>(low, 1, w[1], S, KP, k0, c0);
        chunk::mma_b_stored_nk<Op, 1>(low, 1, w[0], S + COLS * KP, KP, k0, c0);
      };
#pragma unroll
      for (int k0 = 0; k0 < K; k0 += 32) {
        add(sums[0], sums[1], k0);
        if (k0 + 16 < K) add(sums[2], sums[3], k0 + 16);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) sums[0][0][r] += sums[1][0][r] + (sums[2][0][r] + sums[3][0][r]);
      chunk::for_each_pair(sums[0], 1, i0, c0, [&](int i, int col, float first, float second) {
        store_part_pairs(vnew + i * VP + col, C * VP, first, second);
        if (i < L)
          *reinterpret_cast<float2*>(sa + token_row(d, b, t0 + i, h) * d.V + v0 + col) =
              make_float2(first, second);
      });
    }
    Feed::sync();

    for (int m = 0; m < steps; ++m) {
      if (every_checkpoint || m == 0)
        store_state(states + head_state + std::int64_t(t0 / kStep + m) * K * d.V + v0, d.V);
      const float* decay = x.decay + m * K;
      chunk::for_each_accumulator(acc, NT, m0, 0, [&](int key, int, float& value) { value *= decay[key]; });
      // D S + k~^T v + b~^T V_new into the state
      float low[NT][4] = {};
      add_state_products(acc, low, x.kg, x.bg, x.plane, KP, x.v, vnew, C * VP, VP, m0, m * kStep);
#pragma unroll
      for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[t][r] += low[t][r];
    }
    keep_state();
    Feed::sync();  // S for the next V_new; this buffer is refilled after it
    feed.release(i, fetch);
  }
  store_state(ends.end + v0, d.V);
}

}  // namespace flabench::rwkv7
