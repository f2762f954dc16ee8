// simple_gla's per-chunk gradients on Hopper (sm_90a): chunk_backward.cuh's gradients kernel with every
// product on wgmma. That kernel (mma.sync, four warps) took 62% of simple_gla's fwd+bwd at 4,4096,16,128
// (kernels/notes/chunk.md, version 77). Same inputs, same formulas (chunk_backward.cuh's header), same
// dg (write_scalar_gate_grads from the same kind of partial dots).
// A block takes chunk after chunk of 64 tokens (one block an SM: 168 registers a thread), the next chunk's
// q, k, v and do loading into the other stage while it computes one (a block a chunk, version 77, left each
// SM idle while a chunk's inputs came) and the next chunk's states prefetched into L2 (state_prefetch says
// when). Three warpgroups take dq, dk and dv. Each output is made transposed, a 64-row block of keys (or
// values) by the chunk's 64 tokens at a time, so that the fp32 states S0 and dS are the products' A operand,
// read from memory straight into registers and split into two bf16 parts there (no shared memory for them,
// no pass to stage them; where the reverse scan ran in runs, dS made whole there: state_grad_runs.h):
//   dq^T = scale e^{seen_t} (S0 do^T) + k^T M^T        (+ M's diagonal: diag_t k_t)
//   dk^T = e^{to end_t} (dS v^T) + q^T M               (+ diag_t q_t)
//   dv^T = e^{to end_t} (dS^T k^T) + do^T A
// with the token scales on the accumulators' columns. The first two warpgroups first make M (from do v^T)
// and A (from q k^T), decayed and in two bf16 parts, into shared memory; every warpgroup issues its state
// products before it waits for them. Outputs go through shared memory as bf16 rows (stmatrix, transposed) and
// out as 16-byte rows; the token tiles' elements at the outputs' registers come by ldmatrix (version 80).
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/chunk/fused_roles.cuh"
#include "kernels/common/chunk/swizzled_fragments.h"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/lane_sum.cuh"
#include "kernels/common/tensor_map.h"
#include "kernels/common/tma.cuh"
#include "kernels/common/wgmma/wgmma.cuh"
#include "kernels/simple_gla/chunk_backward.cuh"
#include "kernels/simple_gla/chunk_grads_wgmma.h"
#include "kernels/simple_gla/chunk_grads_wgmma_layout.h"
#include "kernels/simple_gla/decayed_scores.cuh"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {
namespace chunk {
namespace {

using bf16 = __nv_bfloat16;
using wgmma::accumulator_element;
using wgmma::Element;

constexpr int C = kFusedChunk;
constexpr int kAcc = C / 2;    // a thread's registers of a 64 x 64 accumulator
constexpr int kLoadSteps = 2;  // depth steps of a state product whose fragments are loaded at once

// Where a thread of the block stands.
struct GradBlock {
  unsigned char* smem;  // the plan's 1024-byte-aligned base
  GradOperands at;
  GradLayout L;
  int thread, warp;  // within its warpgroup
  // the chunk it works on: its head, first token, tokens in the sequence, the stage its inputs are in
  int b, h, t0, length, stage;
  // the chunk's place in the block's order (i) and among all chunks (item = blockIdx.x + i gridDim.x)
  int i, item;
  bool has_next;         // whether the block takes another chunk after this one
  const float *S0, *dS;  // S before the chunk, the gradient of S after it ([K][V] fp32 each)
  // Where the reverse scan ran in runs (state_grad_runs.h): dS is run-local, the whole gradient dS +
  // dS_factor dS_start (null: dS is whole)
  const float* dS_start;
  float dS_factor;
};

// The barriers (0 is __syncthreads's): M and A stored, for every warpgroup; a warpgroup's output rows staged.
__device__ inline NamedBarrier scores_ready() {
  return {1, kGradThreads};
}
__device__ inline NamedBarrier outputs_staged(int group) {
  return {2 + group, roles::kGroup};
}

template <class T>
__device__ T* at_offset(const GradBlock& blk, unsigned offset) {
  return reinterpret_cast<T*>(blk.smem + offset);
}

// An fp32 state as a product reads it: `rows` ([K][V]), plus `factor` times `start` where start is set (a
// run-local state gradient made whole: GradBlock::dS_start).
struct StateRows {
  const float* rows;
  const float* start = nullptr;
  float factor = 0;
};

// Depth steps first .. first + kLoadSteps - 1 of a 64-row A operand read from an fp32 matrix X in memory
// (row stride ld): A[m][k] = X[m0 + m][k], or X[k][m0 + m] where kTransposed; each thread's elements as
// layout.h's a_fragment_element places them.
template <bool kTransposed>
__device__ void load_fragments(const StateRows& X, int ld, int m0, int first, int thread,
                               float (&x)[kLoadSteps][8]) {
  const auto load = [&](const float* from, int s, int e) {
    const Element at = wgmma::a_fragment_element(thread, e);
    const int m = m0 + at.row, k = wgmma::kDepth * (first + s) + at.column;
    if constexpr (kTransposed)
      return make_float2(__ldg(from + std::int64_t(k) * ld + m), __ldg(from + std::int64_t(k + 1) * ld + m));
    else
      return __ldg(reinterpret_cast<const float2*>(from + std::int64_t(m) * ld + k));
  };
#pragma unroll
  for (int s = 0; s < kLoadSteps; ++s)
#pragma unroll
    for (int e = 0; e < 8; e += 2) {
      const float2 pair = load(X.rows, s, e);
      x[s][e] = pair.x, x[s][e + 1] = pair.y;
    }
  if (!X.start) return;
#pragma unroll
  for (int s = 0; s < kLoadSteps; ++s)
#pragma unroll
    for (int e = 0; e < 8; e += 2) {
      const float2 pair = load(X.start, s, e);
      x[s][e] = fmaf(X.factor, pair.x, x[s][e]), x[s][e + 1] = fmaf(X.factor, pair.y, x[s][e + 1]);
    }
}

// acc = A B over kStateSteps depth steps: A the fp32 state X (as load_fragments reads it) in two bf16 parts,
// B the token tile `tokens` read K-major (its rows the N index). The fragments of kLoadSteps steps are
// loaded at a time into a ring of two groups' registers, so that a group's loads run while the group
// before it multiplies.
template <int kStateSteps, bool kTransposed>
__device__ void state_products(float (&acc)[kAcc], const GradBlock& blk, const StateRows& X, int ld, int m0,
                               unsigned tokens) {
  static_assert(kStateSteps % kLoadSteps == 0, "whole load groups");
  constexpr int kGroups = kStateSteps / kLoadSteps;
  std::uint32_t high[2][kLoadSteps][4], low[2][kLoadSteps][4];
#pragma unroll
  for (int group = 0; group < kGroups; ++group) {
    float x[kLoadSteps][8];
    load_fragments<kTransposed>(X, ld, m0, group * kLoadSteps, blk.thread, x);
    const int ring = group % 2;
    if (group >= 2) wgmma::wait<1>();  // the products of group - 2, which read this ring slot
#pragma unroll
    for (int s = 0; s < kLoadSteps; ++s)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const Parts<bf16> parts = split<bf16>(x[s][2 * i], x[s][2 * i + 1]);
        high[ring][s][i] = parts.high, low[ring][s][i] = parts.low;
      }
    wgmma::fence();  // the fragments just written, before the products read them
#pragma unroll
    for (int s = 0; s < kLoadSteps; ++s) {
      const std::uint64_t b = blk.at.rows(tokens, group * kLoadSteps + s);
      wgmma::product<C, 0>(acc, high[ring][s], b, group > 0 || s > 0);
      wgmma::product<C, 0>(acc, low[ring][s], b, true);
    }
    wgmma::commit();
  }
}

// acc = A B over the chunk's tokens: A the columns 64 block .. 64 block + 63 of the token tile `tokens`
// (MN-major: k^T, q^T or do^T), B a score tile's two parts, read MN-major (M or A, kScoresMn) or K-major
// (M^T).
template <bool kScoresMn>
__device__ void score_products(float (&acc)[kAcc], const GradBlock& blk, unsigned tokens, int block,
                               unsigned high, unsigned low) {
  wgmma::fence();
#pragma unroll
  for (int step = 0; step < C / wgmma::kDepth; ++step) {
    const std::uint64_t a = blk.at.columns(tokens, block, step);
#pragma unroll
    for (int part = 0; part < 2; ++part) {
      const unsigned tile = part ? low : high;
      const std::uint64_t b = kScoresMn ? blk.at.columns(tile, 0, step) : blk.at.rows(tile, step);
      wgmma::product<C, 1, kScoresMn ? 1 : 0>(acc, a, b, step > 0 || part > 0);
    }
  }
  wgmma::commit();
}

// The score tile of warpgroup `group`, 0 or 1: scale (X Y^T) o D for j <= i (zeros elsewhere; rows past the
// sequence are zeros, their tokens' inputs staged as zeros) in two bf16 parts into its tiles (rows i, columns
// j): M (group 0: X = do, Y = v; its diagonal, through no decay, into L.diagonal() and zeros in the tiles:
// chunk_backward.cuh's header says why) or A (group 1: q, k). decayed_scores_of_warp's fragments, stored
// where the accumulator's registers stand. One call site for both warpgroups and one instance for every warp
// (the decays' forms a step's branches; kernels/notes/chunk.md versions 126 and 127): each warp's own
// instance for each tile missed the instruction cache (a quarter of the kernel's stall samples, ncu).
template <int K, int V>
__device__ void decayed_score_tile(const GradBlock& blk, const ScalarDecays& dec, float scale, int group) {
  const GradLayout& L = blk.L;
  const bool m = group == 0;
  float acc[kAcc];
  const auto products = [&](auto steps, unsigned x, unsigned y) {
    wgmma::fence();
#pragma unroll
    for (int step = 0; step < decltype(steps)::value; ++step)
      wgmma::product<C, 0, 0>(acc, blk.at.rows(x, step), blk.at.rows(y, step), step > 0);
    wgmma::commit();
  };
  if constexpr (K == V)
    products(std::integral_constant<int, K / wgmma::kDepth>{}, m ? L.d_o(blk.stage) : L.q(blk.stage),
             m ? L.v(blk.stage) : L.k(blk.stage));
  else if (m)
    products(std::integral_constant<int, V / wgmma::kDepth>{}, L.d_o(blk.stage), L.v(blk.stage));
  else
    products(std::integral_constant<int, K / wgmma::kDepth>{}, L.q(blk.stage), L.k(blk.stage));
  wgmma::wait<0>();
  wgmma::hold(acc);
#pragma unroll
  for (int r = 0; r < kAcc; ++r) acc[r] *= scale;
  constexpr int kScoreSteps = C / wgmma::kDepth;
  std::uint32_t high_parts[kScoreSteps][4], low_parts[kScoreSteps][4];
  float diagonal_of_rows[2] = {0.0f, 0.0f};
  decayed_scores_of_warp<kScoreSteps, false>(blk.warp, m, acc, dec, blk.thread, high_parts, low_parts,
                                             diagonal_of_rows);
  const wgmma::Tile tile{C};
  const unsigned high = m ? L.m_part(0) : L.a_part(0), low = m ? L.m_part(1) : L.a_part(1);
#pragma unroll
  for (int step = 0; step < kScoreSteps; ++step)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const Element e = accumulator_element(blk.thread, 8 * step + 2 * i);
      *reinterpret_cast<std::uint32_t*>(blk.smem + high + tile.offset(e.row, e.column)) = high_parts[step][i];
      *reinterpret_cast<std::uint32_t*>(blk.smem + low + tile.offset(e.row, e.column)) = low_parts[step][i];
    }
  const bool holder = wgmma::holds_diagonal(blk.thread);
  const int top = accumulator_element(blk.thread, 0).row;
  if (m && holder) {
    float* diagonal = at_offset<float>(blk, L.diagonal());
#pragma unroll
    for (int half = 0; half < 2; ++half) diagonal[top + 8 * half] = diagonal_of_rows[half];
  }
  wgmma::fence_shared_for_async();
}

// f(r, t, row) for each register r of a 64 x 64 output block made transposed: t its column (the token), row
// its row (the key or value within the block).
template <class F>
__device__ void for_each_token(const GradBlock& blk, F&& f) {
#pragma unroll
  for (int r = 0; r < kAcc; ++r) {
    const Element e = accumulator_element(blk.thread, r);
    f(r, e.column, e.row);
  }
}

// Where this lane points ldmatrix or stmatrix for the A fragment of depth step `step` of a 64 x 64 output
// block made transposed (its rows the tile's columns c0 .. c0 + 63): the warp's 16 rows of it.
__device__ inline PieceStart accumulator_piece(const GradBlock& blk, int c0, int step) {
  return fragment_piece<Fragment::a_transposed>(blk.thread % 32, c0 + 16 * blk.warp, step);
}

// A token tile's elements where a 64 x 64 output block made transposed has its registers: element (t, c0 +
// row) for register r at (row, t), rows the tile's columns c0 .. c0 + 63. The accumulator's registers are,
// eight at a time, the A fragments of its 16-column steps (layout.h), so ldmatrix's transposed read of those
// fragments (swizzled_fragments.h) returns them in register order, two a register (an element each before).
struct TilePairs {
  std::uint32_t pair[kAcc / 2];
  __device__ float at(int r) const {
    const float2 two = unpacked(pair[r / 2]);
    return r % 2 ? two.y : two.x;
  }
};
__device__ TilePairs tile_at_accumulator(const GradBlock& blk, unsigned tile, int c0) {
  TilePairs x;
#pragma unroll
  for (int step = 0; step < kAcc / 8; ++step) {
    const PieceStart piece = accumulator_piece(blk, c0, step);
    std::uint32_t r[4];
    ldmatrix<true, 4>(r, blk.smem + tile + wgmma::Tile{C}.offset(piece.token, piece.channel));
#pragma unroll
    for (int j = 0; j < 4; ++j) x.pair[4 * step + j] = r[j];
  }
  return x;
}

// For each token t (column) of acc: the sum over this warp's 16 rows of acc times x's element there, into
// out[t].
__device__ void column_dots(const float (&acc)[kAcc], const GradBlock& blk, const TilePairs& x, float* out) {
  float sums[kAcc / 2] = {};  // the thread's 16 columns: register r's is 8 (r / 4) + 2 (lane % 4) + r % 2
#pragma unroll
  for (int r = 0; r < kAcc; ++r)
    sums[(r >> 2) * 2 + (r & 1)] = fmaf(acc[r], x.at(r), sums[(r >> 2) * 2 + (r & 1)]);
  const int lane = blk.thread % 32;
#pragma unroll
  for (int x = 0; x < kAcc / 2; ++x) sums[x] = sum_over_strided_lanes(sums[x], 4);  // the 8 lanes of a column
  if (lane < 4)
#pragma unroll
    for (int x = 0; x < kAcc / 2; ++x) out[8 * (x >> 1) + 2 * lane + (x & 1)] = sums[x];
}

// A 64 x 64 block of an output made transposed (rows its columns c0 .., columns tokens) as bf16 into the
// warpgroup's staged rows ([C][ld]): stmatrix's transposed store of the A fragments tile_at_accumulator
// reads, each lane's address the row piece ldmatrix would read there (a 2-byte store an element before).
__device__ void stage_transposed(const float (&acc)[kAcc], const GradBlock& blk, bf16* rows, int ld, int c0) {
#pragma unroll
  for (int step = 0; step < kAcc / 8; ++step) {
    const PieceStart piece = accumulator_piece(blk, c0, step);
    std::uint32_t r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) r[j] = pack<bf16>(acc[8 * step + 2 * j], acc[8 * step + 2 * j + 1]);
    stmatrix<true, 4>(shared_address(rows + piece.token * ld + piece.channel), r);
  }
}

// The warpgroup's staged rows (`columns` wide) into a [B, T, H, columns] gradient, once all are staged.
__device__ void copy_out(const GradBlock& blk, int group, const bf16* rows, bf16* out, const Dims& d) {
  outputs_staged(group).sync();
  const int columns = blk.L.out_columns(group), ld = blk.L.out_ld(group), vectors = columns / 8;
  for (int idx = blk.thread; idx < C * vectors; idx += roles::kGroup) {
    const int t = idx / vectors, c = idx % vectors * 8;
    if (t < blk.length)
      *reinterpret_cast<uint4*>(out + d.row(blk.b, blk.h, blk.t0 + t) * columns + c) =
          *reinterpret_cast<const uint4*>(rows + t * ld + c);
  }
}

// The chunk's state gradient as the products read it.
__device__ inline StateRows state_gradient(const GradBlock& blk) {
  return {blk.dS, blk.dS_start, blk.dS_factor};
}

// When the next chunk's states go into L2 (a bulk prefetch), so that S0 . dS's loads at its start find them
// there. Measured on an H100 (stop 102, version 82): issued a whole chunk ahead at K = V = 128, the lines
// were evicted before their chunk started (the GPU streams about 48 MB through L2 a chunk) and doubled the
// states' DRAM reads, 0.82 GB read without the prefetch against 1.25 GB with, fwd+bwd 0.94-0.95x without; at
// K = V = 64 they stayed and hid the loads' latency, fwd+bwd 0.94-0.96x with at 4,4096,16,64 and
// 1,24576,16,64. Without it, the chunk's first loads wait on DRAM for 128 KiB at K = V = 128 while the SM has
// nothing else to do (long scoreboard 3.8 of 10.4 cycles an instruction, ncu). So at K = V = 128 they go half
// a chunk ahead: before the second of dq's and of dk's 64-row blocks (version 84). (K = 64, V = 128 and its
// mirror, not peer shapes, unmeasured.)
enum class StatePrefetch { chunk_ahead, half_chunk_ahead };
__host__ __device__ constexpr StatePrefetch state_prefetch(int K, int V) {
  return K * V <= 64 * 64 ? StatePrefetch::chunk_ahead : StatePrefetch::half_chunk_ahead;
}

// Halfway through a warpgroup's 64-row blocks (m: the block about to start; between blocks no accumulator
// is live), where state_prefetch says so: the state X (blk.S0 or blk.dS) of the chunk after blk's in the
// block's order into L2, if there is one. dq's warpgroup takes S0's, dk's dS's (each holds its own pointer).
template <int K, int V>
__device__ void prefetch_next_state(const GradBlock& blk, int m, const float* X) {
  if (state_prefetch(K, V) != StatePrefetch::half_chunk_ahead || m != K / wgmma::kRows / 2 ||
      blk.thread != 0 || !blk.has_next)
    return;
  // the states are [B H][chunks][K][V], item-major
  prefetch_to_l2(X + std::int64_t(gridDim.x) * K * V, sizeof(float) * K * V);
}

// Both products of an output's 64-row block m: `state` = A B over kStateSteps depth steps, A the fp32 state
// X's rows 64 m .. (kTransposed: its columns), X's rows ld apart, B the token tile `state_tokens`; `scores` =
// the columns 64 m .. of the token tile `score_tokens` times a score tile's two parts (score_products). The
// first block runs `meanwhile` under its state products, then waits there for M and A; both are done on
// return.
struct Nothing {
  __device__ void operator()() const {}
};
template <int kStateSteps, bool kTransposed, bool kScoresMn, class Meanwhile = Nothing>
__device__ void block_products(float (&state)[kAcc], float (&scores)[kAcc], const GradBlock& blk,
                               const StateRows& X, int ld, int m, unsigned state_tokens,
                               unsigned score_tokens, unsigned high, unsigned low, Meanwhile meanwhile = {}) {
  state_products<kStateSteps, kTransposed>(state, blk, X, ld, wgmma::kRows * m, state_tokens);
  if (m == 0) {
    meanwhile();
    scores_ready().sync_unaligned();
  }
  score_products<kScoresMn>(scores, blk, score_tokens, m, high, low);
  wgmma::wait<0>();
  wgmma::hold(state);
  wgmma::hold(scores);
}

// dq^T = scale e^{seen_t} (S0 do^T) + k^T M^T, then + diag_t k_t (M: decayed_score_tile's).
template <int K, int V>
__device__ void dq_group(const GradBlock& blk, const ScalarDecays& dec, const Dims& d, bf16* dq) {
  const GradLayout& L = blk.L;
  const float* diagonal = at_offset<float>(blk, L.diagonal());
  bf16* rows = at_offset<bf16>(blk, L.out(0));
#pragma unroll 1
  for (int m = 0; m < K / wgmma::kRows; ++m) {
    prefetch_next_state<K, V>(blk, m, blk.S0);
    float state[kAcc], scores[kAcc];
    block_products<V / wgmma::kDepth, false, false>(state, scores, blk, {blk.S0}, V, m, L.d_o(blk.stage),
                                                    L.k(blk.stage), L.m_part(0), L.m_part(1));
    for_each_token(blk, [&](int r, int t, int) { state[r] = state[r] * dec.seen[t] * d.scale + scores[r]; });
    column_dots(state, blk, tile_at_accumulator(blk, L.q(blk.stage), wgmma::kRows * m),
                at_offset<float>(blk, L.dq_dots()) + (GradLayout::kWarps * m + blk.warp) * C);
    const TilePairs k = tile_at_accumulator(blk, L.k(blk.stage), wgmma::kRows * m);
    for_each_token(blk, [&](int r, int t, int) { state[r] = fmaf(diagonal[t], k.at(r), state[r]); });
    stage_transposed(state, blk, rows, L.out_ld(0), wgmma::kRows * m);
  }
  copy_out(blk, 0, rows, dq, d);
}

// dk^T = e^{to end_t} (dS v^T) + q^T M, + diag_t q_t (its warpgroup made A, for dv: decayed_score_tile).
template <int K, int V>
__device__ void dk_group(const GradBlock& blk, const ScalarDecays& dec, const Dims& d, bf16* dk) {
  const GradLayout& L = blk.L;
  const float* diagonal = at_offset<float>(blk, L.diagonal());
  bf16* rows = at_offset<bf16>(blk, L.out(1));
#pragma unroll 1
  for (int m = 0; m < K / wgmma::kRows; ++m) {
    prefetch_next_state<K, V>(blk, m, blk.dS);
    float state[kAcc], scores[kAcc];
    block_products<V / wgmma::kDepth, false, true>(state, scores, blk, state_gradient(blk), V, m,
                                                   L.v(blk.stage), L.q(blk.stage), L.m_part(0), L.m_part(1));
    // k . dk's part through the scores alone: the handed-on part comes from dv's warpgroup
    column_dots(scores, blk, tile_at_accumulator(blk, L.k(blk.stage), wgmma::kRows * m),
                at_offset<float>(blk, L.dk_dots()) + (GradLayout::kWarps * m + blk.warp) * C);
    const TilePairs q = tile_at_accumulator(blk, L.q(blk.stage), wgmma::kRows * m);
    for_each_token(blk, [&](int r, int t, int) {
      state[r] = fmaf(dec.to_end[t], state[r], fmaf(diagonal[t], q.at(r), scores[r]));
    });
    stage_transposed(state, blk, rows, L.out_ld(1), wgmma::kRows * m);
  }
  copy_out(blk, 1, rows, dk, d);
}

// S0 . dS (dg's state term) by dv's warpgroup, each warp's share, while its first state products run and
// before it waits for the score tiles (a fifth of its time, ncu: version 130), where all 384 threads made it
// before the chunk's barrier and waited there on its loads (6% of the kernel's stall samples). The thread's
// loads are issued kBatch pairs at a time: a loop that waited for each pair in turn took a third of the
// kernel's stall samples at K = V = 128 (ncu, stop 102; version 81).
template <int K, int V>
__device__ void state_dot(const GradBlock& blk) {
  constexpr int kVectors = K * V / 4, kPerThread = kVectors / roles::kGroup, kBatch = 4;
  static_assert(kVectors % roles::kGroup == 0 && kPerThread % kBatch == 0, "whole batches");
  const auto* s0 = reinterpret_cast<const float4*>(blk.S0);
  const auto* ds = reinterpret_cast<const float4*>(blk.dS);
  const auto* start = reinterpret_cast<const float4*>(blk.dS_start);
  float partial = 0;
#pragma unroll
  for (int first = 0; first < kPerThread; first += kBatch) {
    float4 a[kBatch], b[kBatch];
#pragma unroll
    for (int n = 0; n < kBatch; ++n) {
      const int e = blk.thread + (first + n) * roles::kGroup;
      a[n] = __ldg(s0 + e);
      b[n] = __ldg(ds + e);
    }
    if (start) {  // a run-local gradient made whole
      const float f = blk.dS_factor;
#pragma unroll
      for (int n = 0; n < kBatch; ++n) {
        const float4 s = __ldg(start + blk.thread + (first + n) * roles::kGroup);
        b[n] = {fmaf(f, s.x, b[n].x), fmaf(f, s.y, b[n].y), fmaf(f, s.z, b[n].z), fmaf(f, s.w, b[n].w)};
      }
    }
#pragma unroll
    for (int n = 0; n < kBatch; ++n)
      partial += a[n].x * b[n].x + a[n].y * b[n].y + a[n].z * b[n].z + a[n].w * b[n].w;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) partial += __shfl_xor_sync(fused::kFullWarp, partial, o);
  if (blk.thread % 32 == 0) at_offset<float>(blk, blk.L.state_dots())[blk.warp] = partial;
}

// dv^T = e^{to end_t} (dS^T k^T) + do^T A; k . dk's handed-on part is its first term's dot with v. The
// warpgroup waits for A (the first block's products: block_products), so it runs `meanwhile` there.
template <int K, int V, class Meanwhile>
__device__ void dv_group(const GradBlock& blk, const ScalarDecays& dec, const Dims& d, bf16* dv,
                         Meanwhile meanwhile) {
  const GradLayout& L = blk.L;
  bf16* rows = at_offset<bf16>(blk, L.out(2));
#pragma unroll 1
  for (int m = 0; m < V / wgmma::kRows; ++m) {
    float state[kAcc], scores[kAcc];
    block_products<K / wgmma::kDepth, true, true>(state, scores, blk, state_gradient(blk), V, m,
                                                  L.k(blk.stage), L.d_o(blk.stage), L.a_part(0), L.a_part(1),
                                                  meanwhile);
    for_each_token(blk, [&](int r, int t, int) { state[r] *= dec.to_end[t]; });
    column_dots(state, blk, tile_at_accumulator(blk, L.v(blk.stage), wgmma::kRows * m),
                at_offset<float>(blk, L.handed_dots()) + (GradLayout::kWarps * m + blk.warp) * C);
    for_each_token(blk, [&](int r, int, int) { state[r] += scores[r]; });
    stage_transposed(state, blk, rows, L.out_ld(2), wgmma::kRows * m);
  }
  copy_out(blk, 2, rows, dv, d);
}

// The token-major inputs' maps: q and k (K channels), v and do (V), a box a 64-channel panel of a chunk.
struct InputMaps {
  CUtensorMap q, k, v, d_o;
};

// The thread that copies each chunk's inputs: warp 0's, the first to start a chunk (the last warp writes the
// chunk before's dg after the end barrier).
constexpr unsigned kCopyThread = 0;

// One thread (kCopyThread): the chunk's q, k, v and do into its stage's tiles by TMA, a box a panel (rows
// past the sequence come as zeros), completing on the stage's copy barrier; and its states into L2 where
// state_prefetch says chunk_ahead. Before version 133 every thread issued cp.async copies, ~100
// instructions a thread of address work on every chunk's path to its first barrier.
template <int K, int V>
__device__ void stage_inputs(const GradBlock& blk, const InputMaps& maps) {
  const unsigned base = blk.at.base, barrier = base + blk.L.copied(blk.stage);
  // panel p (channels 64 p ..) of the token tile at `tile` from `map`
  const auto copy_panel = [&](unsigned tile, const CUtensorMap& map, int p) {
    tma::copy_box(base + tile + p * wgmma::Tile{C}.panel_bytes(), map, barrier, p * kTileMapColumns, blk.h,
                  blk.t0, blk.b);
  };
  tma::expect_bytes(barrier, blk.L.stage_bytes());
#pragma unroll
  for (int p = 0; p < K / kTileMapColumns; ++p) {
    copy_panel(blk.L.q(blk.stage), maps.q, p);
    copy_panel(blk.L.k(blk.stage), maps.k, p);
  }
#pragma unroll
  for (int p = 0; p < V / kTileMapColumns; ++p) {
    copy_panel(blk.L.v(blk.stage), maps.v, p);
    copy_panel(blk.L.d_o(blk.stage), maps.d_o, p);
  }
  if (state_prefetch(K, V) == StatePrefetch::chunk_ahead) {
    prefetch_to_l2(blk.S0, sizeof(float) * K * V);
    prefetch_to_l2(blk.dS, sizeof(float) * K * V);
  }
}

// Waits for chunk `blk`'s inputs in its stage: the stage's (i / kGradStages)-th use, its copy barrier's phase
// of that parity.
__device__ inline void wait_for_inputs(const GradBlock& blk) {
  mbarrier_wait(blk.at.base + blk.L.copied(blk.stage), unsigned(blk.i / kGradStages) & 1u);
}

// Where chunk `i` of this block's order stands (item: its index among all B H chunks, head-major); its run's
// start (where the reverse scan ran in runs) is with_run_start's.
__device__ GradBlock chunk_place(GradBlock blk, int i, const Dims& d, const float* states,
                                 const float* dstates) {
  blk.i = i, blk.item = blockIdx.x + i * gridDim.x, blk.stage = i % kGradStages;
  const int bh = blk.item / d.chunks(), n = blk.item % d.chunks();
  blk.has_next = blk.item + int(gridDim.x) < d.B * d.H * d.chunks();
  blk.b = bh / d.H, blk.h = bh % d.H, blk.t0 = n * C, blk.length = min(C, d.T - blk.t0);
  const std::int64_t state = std::int64_t(blk.item) * blk.L.K * blk.L.V;  // [B H][chunks][K][V]
  blk.S0 = states + state, blk.dS = dstates + state;
  blk.dS_start = nullptr, blk.dS_factor = 0.f;
  return blk;
}

// The scalar gate's factor of chunk `item` in its run (the same for every key): loaded a chunk before it is
// used (with_run_start), where comparing it as it came stalled every warp on its load each chunk (ncu,
// kernels/notes/chunk.md version 126).
template <bool kRuns>
__device__ float run_factor(const StateGradStarts& runs, int item, int K) {
  return kRuns ? __ldg(runs.gammas + std::int64_t(item) * K) : 0.f;
}

// blk's run start and `factor` (run_factor's) where the start adds something: where the factor underflowed
// to zero it adds nothing (its loads are left out: with typical decays every chunk but a run's first few).
template <bool kRuns>
__device__ GradBlock with_run_start(GradBlock blk, const Dims& d, const StateGradStarts& runs, float factor) {
  if (!kRuns || factor == 0.f) return blk;
  const int bh = blk.item / d.chunks(), n = blk.item % d.chunks();
  blk.dS_start = runs.start_of(bh, n, d.chunks(), std::int64_t(blk.L.K) * blk.L.V);
  blk.dS_factor = factor;
  return blk;
}

// The warp that writes a chunk's dg after its products (until version 85 warp 0 did it and then the next
// chunk's decays while the other warps waited at the barrier after S0 . dS), and the one that makes the next
// chunk's decays, dv's first, once its warpgroup's outputs are out (dv's warpgroup ends a chunk first;
// version 132: warp 0 made them before each chunk's first barrier, which every warp waited at; in dv's wait
// for the score tiles, under its state products, they spilled at K = V = 64).
constexpr int kGateGradsWarp = kGradThreads / 32 - 1;
constexpr int kDecaysWarp = 2 * roles::kGroup / 32;

// grid: at most one block an SM (fewer where there are fewer chunks), kGradThreads threads, L.bytes() of
// shared memory; block x takes chunks x, x + gridDim.x, ... of all B H chunks, the next one's inputs loading
// while it computes one. states: S before every chunk (the forward's); dstates: the gradient of the state
// after every chunk (the reverse scan's).
// kRuns: the state gradients are run-local, made whole with `runs` (an instance of its own: the
// multiply-adds' loads took K = V = 128's registers past 168, spilling).
template <int K, int V, bool kRuns>
__global__ void __launch_bounds__(kGradThreads, 1)
    scalar_grads_wgmma_kernel(Pointers<bf16> p, GradPointers<bf16> g, Dims d, const float* states,
                              const float* dstates, StateGradStarts runs,
                              const __grid_constant__ InputMaps maps) {
  constexpr GradLayout L{K, V};
  extern __shared__ unsigned char raw[];
  unsigned char* smem = roles::aligned_plan(raw);
  GradBlock block{};
  block.smem = smem, block.at = GradOperands{shared_address(smem)}, block.L = L;
  block.thread = int(threadIdx.x % roles::kGroup), block.warp = block.thread / 32;
  const int items = d.B * d.H * d.chunks(), group = threadIdx.x / roles::kGroup;
  // the decays of the block's chunk i
  const auto decays_of = [&](int i) {
    return ScalarDecays::carve(at_offset<float>(block, L.decays(i % 2)), C);
  };
  const bool decays_warp = threadIdx.x / 32 == kDecaysWarp;

  const GradBlock first = chunk_place(block, 0, d, states, dstates);
  if (threadIdx.x == kCopyThread) {
    for (int stage = 0; stage < kGradStages; ++stage) tma::init_copy_barrier(block.at.base + L.copied(stage));
    stage_inputs<K, V>(first, maps);
  }
  __syncthreads();  // the barriers initialised, before anyone waits on them
  // the next chunk's gate factor, loaded a chunk ahead; the first chunk's decays
  float factor = run_factor<kRuns>(runs, first.item, K);
  __nv_bfloat16 gates[2] = {};
  if (decays_warp) {
    load_scalar_gates<C>(p, d, first.b, first.h, first.t0, gates);
    scan_scalar_decays(decays_of(0), C, to_float(gates[0]), to_float(gates[1]));
  }
#pragma unroll 1
  for (int i = 0; blockIdx.x + i * gridDim.x < items; ++i) {
    const GradBlock blk = with_run_start<kRuns>(chunk_place(block, i, d, states, dstates), d, runs, factor);
    const ScalarDecays dec = decays_of(i);
    // the next chunk's copies into the other stage (its last reader, chunk i - 1, is done: the barrier
    // at the end of the last iteration); its gates, for its decays made during this chunk
    if (blk.has_next) {
      const GradBlock next = chunk_place(block, i + 1, d, states, dstates);
      if (threadIdx.x == kCopyThread) stage_inputs<K, V>(next, maps);
      factor = run_factor<kRuns>(runs, next.item, K);
      if (decays_warp) load_scalar_gates<C>(p, d, next.b, next.h, next.t0, gates);
    }
    wait_for_inputs(blk);
    __syncthreads();

    if (group < 2) decayed_score_tile<K, V>(blk, dec, d.scale, group);
    if (group == 0)
      dq_group<K, V>(blk, dec, d, g.dq);
    else if (group == 1)
      dk_group<K, V>(blk, dec, d, g.dk);
    else
      dv_group<K, V>(blk, dec, d, g.dv, [&] { state_dot<K, V>(blk); });
    // dv's warpgroup ends its chunk first: the next chunk's decays meanwhile
    if (decays_warp && blk.has_next)
      scan_scalar_decays(decays_of(i + 1), C, to_float(gates[0]), to_float(gates[1]));
    __syncthreads();  // every partial dot; every read of this stage's tiles

    if (threadIdx.x / 32 == kGateGradsWarp)
      write_scalar_gate_grads<C>(
          {at_offset<float>(blk, L.dq_dots()), at_offset<float>(blk, L.dk_dots()),
           at_offset<float>(blk, L.handed_dots()), at_offset<float>(blk, L.state_dots()), L.key_parts(),
           L.value_parts(), GradLayout::kWarps},
          *dec.e_whole, g.dg, d, blk.b, blk.h, blk.t0, blk.length);
  }
}

template <int K, int V>
void launch_grads(const Pointers<bf16>& p, const GradPointers<bf16>& g, const Dims& d, const float* states,
                  const float* dstates, const StateGradStarts& runs, int multiprocessors,
                  cudaStream_t stream) {
  const GradLayout L{K, V};
  const int items = d.B * d.H * d.chunks();
  const TokenTileMapShape keys = token_tile_map_shape(d.B, d.T, d.H, K, C);
  const TokenTileMapShape values = token_tile_map_shape(d.B, d.T, d.H, V, C);
  const InputMaps maps{encode_bf16_token_tile_map(p.q, keys), encode_bf16_token_tile_map(p.k, keys),
                       encode_bf16_token_tile_map(p.v, values), encode_bf16_token_tile_map(g.d_o, values)};
  const auto launch = [&](auto kernel) {
    allow_shared_memory(kernel, L.bytes());
    kernel<<<unsigned(std::min(items, multiprocessors)), kGradThreads, L.bytes(), stream>>>(
        p, g, d, states, dstates, runs, maps);
    FLA_CUDA_CHECK_LAUNCH();
  };
  if (runs.starts)
    launch(scalar_grads_wgmma_kernel<K, V, true>);
  else
    launch(scalar_grads_wgmma_kernel<K, V, false>);
}

}  // namespace
}  // namespace chunk

bool simple_gla_grads_wgmma_runs(const Problem& p, const DeviceLimits& limits) {
  if (!wgmma::built_for_sm90a() || limits.compute_capability != 90) return false;
  return p.dtype == DType::bf16 && p.chunk_size == chunk::kFusedChunk && (p.K == 64 || p.K == 128) &&
         (p.V == 64 || p.V == 128) &&
         chunk::GradLayout{int(p.K), int(p.V)}.bytes() <= limits.shared_memory_per_block;
}

void simple_gla_grads_wgmma(const BackwardCall& call, const float* states, const float* dstates,
                            const chunk::StateGradStarts& runs, const DeviceLimits& limits) {
  const chunk::Dims d = chunk::make_dims(call.problem);
  const Pointers<__nv_bfloat16> p = bind_inputs<__nv_bfloat16>(kSimpleGlaBinding, call.inputs);
  const GradPointers<__nv_bfloat16> g =
      bind_grads<__nv_bfloat16>(kSimpleGlaBinding, call.grad_outputs, call.grads);
  with_one_of<64, 128>(d.K, [&](auto K) {
    with_one_of<64, 128>(d.V, [&](auto V) {
      chunk::launch_grads<K.value, V.value>(p, g, d, states, dstates, runs, limits.multiprocessors,
                                            call.stream);
    });
  });
}

}  // namespace flabench
