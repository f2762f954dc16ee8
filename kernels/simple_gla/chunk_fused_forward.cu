// simple_gla's chunk forward in one kernel on Hopper (sm_90a): a block scans one head's chunks for a slice of
// Vs values, its fp32 state in a warpgroup's registers, every product on wgmma (kernels/common/wgmma/). Where
// the three-kernel scalar forward (chunk_forward.cuh) writes every chunk's fp32 state to memory and reads it
// back (at D = 128 two thirds of its bytes), this one reads q, k, v and g once and writes o once (and, where
// a backward follows that reads them, the states, once).
// Three or four warpgroups, a chunk of 64 tokens at a time, three or four chunks staged
// (chunk_fused_layout.h):
//   loads    cp.async of the next chunks' q, k, v into the 128-byte-swizzled tiles the products read; the
//            chunk's decays (ScalarDecays);
//   state    publishes S (the state before the chunk) in two bf16 parts, then makes v e^{decay to the
//            chunk's end} in two bf16 parts and S = e^{chunk total} S + k^T (v e^{to end}): its chain is the
//            only one that runs chunk after chunk;
//   outputs  o = scale (e^{seen_i} q S + P v), P = (q k^T) o e^{G_i - G_j} for j <= i, P's two bf16 parts fed
//            to the next product from registers; at 32 values a block two outputs warpgroups take the
//            chunks in turn, each with its own buffer of S (fused_output_groups).
// It runs where its blocks fill more than half the GPU (fused_plan.h, fused_blocks_fill), and as a forward
// where they do not over segments of the sequence at once, a block each, from start states the scan made in
// runs (fused_plan.h, FusedSegments; kernels/simple_gla/chunk.cu, scalar_segment_starts). The same kernel
// runs the backward where its blocks fill: at K and V of 64 or 128 as three passes with the roles of q, k and
// v taken by others, one forward and two in reverse time (Pass::reverse; simple_gla_fused_backward below), no
// state saved or read; elsewhere (V = 32, ...) its reverse scan (Pass::state_grads: the state warpgroup's
// update over the chunks in reverse, with q and do scale e^{seen}, the outputs warpgroup idle) before the
// gradients kernel. The precision is the scalar forward's: S, P and the decayed v in two parts (~16 bits), q,
// k, v as they are. Exponents as chunk_forward.cuh's (sums within 16-token sub-chunks, never positive).
#include <cuda_bf16.h>

#include <cstdint>
#include <utility>

#include "kernels/common/aligned_span.h"
#include "kernels/common/chunk/fused_roles.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/cuda_check.h"
#include "kernels/common/forked_stream.h"
#include "kernels/common/lane_sum.cuh"
#include "kernels/common/wgmma/wgmma.cuh"
#include "kernels/simple_gla/chunk_forward.cuh"
#include "kernels/simple_gla/chunk_fused_forward.h"
#include "kernels/simple_gla/chunk_fused_layout.h"
#include "kernels/simple_gla/chunk_gate_grads.h"
#include "kernels/simple_gla/decayed_scores.cuh"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench {
namespace chunk {
namespace {

using bf16 = __nv_bfloat16;
using wgmma::accumulator_element;
using wgmma::Tile;

constexpr int C = kFusedChunk;
using namespace roles;  // the barriers between the roles, kGroup

// What a launch computes, with q, k, v its pointers' roles (the backward's passes bind gradients and inputs
// to them: simple_gla_fused_backward below).
//   forward      o = scale (e^{seen_i} q S + P v) and the states, chunks in order;
//   reverse      the same in reverse time, chunks from the last: o_j = e^{to end_j} q_j S + scale
//                sum_{i >= j} e^{G_i - G_j} (q_j . k_i) v_i with S the state after the chunk, and
//                S <- e^{chunk total} S + k^T (v scale e^{seen}) (a state's gradient is one of these);
//   state_grads  reverse's update alone, no outputs: the gradients of the state after every chunk, with q in
//                k's place and do in v's.
enum class Pass { forward, reverse, state_grads };
// Whether a pass takes its chunks from the last.
template <Pass kPass>
constexpr bool kReverseTime = kPass != Pass::forward;

// What the backward's passes in the state's transpose (dq's and dk's) ask of a launch besides o: `dots` gets,
// for each token, the dot of its output row (before the scale, without the term through no decay, P's
// diagonal: it cancels exactly between q . dq and k . dk, and at log decays of -40 fp32 would keep its
// rounding) with the row of `dot_with` (laid out as o); one row of T floats a value slice, [V / Vs][B H][T].
// Their initial states are stored transposed ([B H][V][K]: the caller's orientation). The reverse one (dk's)
// keeps the initial state (the final state's gradient) apart from the state it carries: its dots leave out
// the final state's term, whose dots go to `final_dots` (dg sums those forwards from the sequence's start,
// the rest backwards: chunk_gate_grads.cu; summed with the rest, the final state's O(1) terms would leave
// their rounding where, at log decays of -40, dg is ~e^-40).
struct PassExtras {
  const bf16* dot_with = nullptr;
  float* dots = nullptr;
  float* final_dots = nullptr;
};

// Eight bf16 times `factor` into two bf16 parts.
__device__ inline void scaled_parts(uint4 x, float factor, uint4& high, uint4& low) {
  const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&x);
  std::uint32_t* h = &high.x;
  std::uint32_t* l = &low.x;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(pairs[i]);
    const Parts<bf16> parts = split<bf16>(f.x * factor, f.y * factor);
    h[i] = parts.high, l[i] = parts.low;
  }
}

// Where a chunk's rows of PassExtras::dot_with are: staged with the chunk in its stage's v tile from column
// `column` (FusedLayout::dot_rows; zeros past the sequence), or else in memory at `with` (o's layout:
// `stride` elements apart from the chunk's first row at the block's first value column), the first `length`
// rows.
struct ChunkDotRows {
  const unsigned char* staged;
  int column;
  const bf16* with;
  std::int64_t stride;
  int length;
};

// The rows PassExtras::dots reads for a thread's accumulator elements, as bf16 pairs; zeros past the
// sequence. Read while the chunk's last products run, so that their latency is off the outputs' chain as far
// as the products last: from the stage (kStaged) a shared-memory read's, from memory a global load's.
template <int kHalf, bool kStaged>
__device__ void load_dot_rows(std::uint32_t (&x)[kHalf / 2], const ChunkDotRows& rows, int thread) {
  const Tile tokens{C};
#pragma unroll
  for (int r = 0; r < kHalf; r += 2) {
    const wgmma::Element e = wgmma::accumulator_element(thread, r);
    if constexpr (kStaged)
      x[r / 2] =
          *reinterpret_cast<const std::uint32_t*>(rows.staged + tokens.offset(e.row, rows.column + e.column));
    else
      x[r / 2] = e.row < rows.length
                     ? *reinterpret_cast<const std::uint32_t*>(rows.with + e.row * rows.stride + e.column)
                     : 0u;
  }
}

// One value for each of the thread's two rows into `into` (the chunk's first token's), by the first thread of
// the quad that holds the row, the first `length` rows.
__device__ inline void write_row_values(const float (&value)[2], int length, float* into, int thread) {
  const int top = accumulator_element(thread, 0).row;
  if (thread % 4 == 0)
#pragma unroll
    for (int half = 0; half < 2; ++half)
      if (top + 8 * half < length) into[top + 8 * half] = value[half];
}

// The dots PassExtras::dots holds: each of the thread's two rows' o (before the scale) with the rows `x`
// (load_dot_rows'), summed over the quad that holds the row's values, into `into` (write_row_values').
template <int kHalf>
__device__ void write_row_dots(const float (&o)[kHalf], const std::uint32_t (&x)[kHalf / 2], int length,
                               float* into, int thread) {
  float dot[2] = {0.0f, 0.0f};
#pragma unroll
  for (int r = 0; r < kHalf; r += 2) {
    const float2 pair = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&x[r / 2]));
    dot[(r >> 1) & 1] += o[r] * pair.x + o[r + 1] * pair.y;
  }
#pragma unroll
  for (int half = 0; half < 2; ++half) dot[half] = sum_over_lanes(dot[half], 4);
  write_row_values(dot, length, into, thread);
}

// o += the diagonal's terms left out of P (each row's own, times its own values' row from the stage's tile;
// no decay between a token and itself): `diagonal` as decayed_scores gave it, summed over the quad here.
template <int kHalf>
__device__ void add_diagonal(float (&o)[kHalf], float (&diagonal)[2], const unsigned char* values,
                             int thread) {
  const Tile tokens{C};
#pragma unroll
  for (int half = 0; half < 2; ++half) diagonal[half] = sum_over_lanes(diagonal[half], 4);
#pragma unroll
  for (int r = 0; r < kHalf; r += 2) {
    const wgmma::Element e = wgmma::accumulator_element(thread, r);
    const float2 x =
        __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(values + tokens.offset(e.row, e.column)));
    o[r] += diagonal[(r >> 1) & 1] * x.x;
    o[r + 1] += diagonal[(r >> 1) & 1] * x.y;
  }
}

// The chunk's log decays as loaded (load_scalar_gates', by the loads' first warp), fetched before its copies
// and converted only by its preparation kAhead chunks later, so that the loads' latency is hidden the same
// way: converted as they were fetched, the warp waited for them there every chunk, on the ring's path
// (kernels/notes/chunk.md, version 105).
struct ChunkGates {
  bf16 g[2];
};

// The loads' warpgroup: chunk n's q (where there are outputs), k and v by cp.async into stage s (rows past
// the sequence as zeros), and where kDotRows the chunk's rows of `dot_with` (laid out as v) beside v's, one
// group.
template <int K, int kVs, Pass kPass, bool kDotRows>
__device__ void load_chunk(const Pointers<bf16>& p, const bf16* dot_with, const Dims& d, const FusedLayout& L,
                           unsigned base, int b, int h, int v0, int n, int s, int thread) {
  const int t0 = n * C, length = min(C, d.T - t0);
  const Tile tokens{C};
  const std::int64_t first = d.row(b, h, t0);
  const bf16 *k_rows = p.k + first * K, *v_rows = p.v + first * d.V + v0;
  const bf16* dot_rows = kDotRows ? dot_with + first * d.V + v0 : nullptr;
  for (int idx = thread; idx < C * K / 8; idx += kGroup) {
    const int t = idx / (K / 8), c = idx % (K / 8) * 8;
    const bool in = t < length;
    const std::int64_t at = (in ? std::int64_t(t) * d.H * K : 0) + c;
    if constexpr (kPass != Pass::state_grads)  // (that pass has no q here: p.q is null)
      cp_async16_or_zeros_to(base + L.q(s) + tokens.offset(t, c), p.q + first * K + at, in);
    cp_async16_or_zeros_to(base + L.k(s) + tokens.offset(t, c), k_rows + at, in);
  }
  for (int idx = thread; idx < C * kVs / 8; idx += kGroup) {
    const int t = idx / (kVs / 8), c = idx % (kVs / 8) * 8;
    const bool in = t < length;
    const std::int64_t at = (in ? std::int64_t(t) * d.H * d.V : 0) + c;
    cp_async16_or_zeros_to(base + L.v(s) + tokens.offset(t, c), v_rows + at, in);
    if constexpr (kDotRows)
      cp_async16_or_zeros_to(base + L.v(s) + tokens.offset(t, L.dot_rows_column() + c), dot_rows + at, in);
  }
  cp_async_commit();
}

__device__ inline ChunkGates fetch_gates(const Pointers<bf16>& p, const Dims& d, int b, int h, int n,
                                         int thread) {
  ChunkGates gates{};
  if (thread < 32) load_scalar_gates<C>(p, d, b, h, n * C, gates.g);
  return gates;
}

// Chunk n's gates into L2 (one bulk prefetch of the 16-byte pieces wholly within the span from its first
// token's gate to its last's, every head's: the other heads' blocks read the same lines), by one thread, so
// that fetch_gates, kAhead chunks later, finds them there: from memory they took longer than a chunk.
__device__ inline void prefetch_gates(const Pointers<bf16>& p, const Dims& d, int b, int h, int n) {
  const int t0 = n * C, last = min(t0 + C, d.T) - 1;
  const ByteSpan span = aligned_within(reinterpret_cast<std::uintptr_t>(p.g + d.row(b, h, t0)),
                                       reinterpret_cast<std::uintptr_t>(p.g + d.row(b, h, last) + 1), 16);
  if (span.to > span.from)
    prefetch_to_l2(reinterpret_cast<const void*>(span.from), unsigned(span.to - span.from));
}

// The loads' warpgroup: the chunks' copies kAhead chunks ahead through kStages stages, and each landed
// chunk's decays (its first warp, from the gates it fetched with the copies). kDecayToLast (a reverse pass:
// the chunks come from the last): also the decay from each chunk's end to the sequence's, the product of
// the e^{chunk total} before it in the ring. kDotRows: each chunk's rows of `dot_with` too (load_chunk).
template <int K, int kVs, int kStages, int kAhead, Pass kPass, bool kDecayToLast, bool kDotRows>
__device__ void loads_role(const Pointers<bf16>& p, const bf16* dot_with, const Dims& d, const FusedLayout& L,
                           unsigned char* smem, int b, int h, int v0, const ChunkRun& run, int thread) {
  static_assert(!kDecayToLast || kPass == Pass::reverse);
  const unsigned base = shared_address(smem);
  float to_last = 1.0f;  // (thread 0's)
  roles::run_loads_ring<kStages, kAhead>(
      run.count,
      [&](int j) {
        const int n = run.at<kReverseTime<kPass>>(j);
        const ChunkGates gates = fetch_gates(p, d, b, h, n, thread);  // (before the copies)
        if (thread == 0 && j + kAhead < run.count)
          prefetch_gates(p, d, b, h, run.at<kReverseTime<kPass>>(j + kAhead));
        load_chunk<K, kVs, kPass, kDotRows>(p, dot_with, d, L, base, b, h, v0, n, j % kStages, thread);
        return gates;
      },
      [&](int, int s, const ChunkGates& gates) {
        const ScalarDecays dec = ScalarDecays::carve(reinterpret_cast<float*>(smem + L.decays(s)), C);
        if (thread < 32) scan_scalar_decays(dec, C, to_float(gates.g[0]), to_float(gates.g[1]));
        if (kDecayToLast && thread == 0) {  // (its lane wrote e_whole: the scan's end orders it)
          *reinterpret_cast<float*>(smem + L.decay_to_last(s)) = to_last;
          to_last *= *dec.e_whole;
        }
        loaders().sync();  // the first warp's decays before any loader hands the stage over
      });
}

// The state warpgroup's B of the update from stage s's v: v times each token's decay to the chunk's end
// (reverse and state_grads: v times scale e^{seen}) in two bf16 parts into its own tile, for its products.
// Every thread's reads go out before its first use of them (a loop over the pieces waited for each read in
// turn: two shared-memory latencies a chunk on the state's chain, version 101).
template <int kVs, Pass kPass>
__device__ void make_decayed_values(const FusedLayout& L, unsigned char* smem, int s, const ScalarDecays& dec,
                                    float scale, int thread) {
  constexpr int kPieces = C * kVs / 8 / kGroup;  // a thread's 8-value pieces
  static_assert(kPieces * kGroup * 8 == C * kVs);
  constexpr int kRowPieces = kVs / 8, kWarpRows = warp_piece_rows(kRowPieces);
  const Tile tokens{C};
  // piece i's row: the warpgroup's rows in steps of four warps' rows, each warp's without bank conflicts
  const TilePiece piece = conflict_free_piece<kRowPieces>(thread % 32);
  const auto row = [&](int i) { return kWarpRows * (thread / 32 + 4 * i) + piece.row; };
  const int c = piece.column;
  uint4 x[kPieces];
  float factor[kPieces];
#pragma unroll
  for (int i = 0; i < kPieces; ++i) {
    const int t = row(i);
    x[i] = *reinterpret_cast<const uint4*>(smem + L.v(s) + tokens.offset(t, c));
    factor[i] = kPass == Pass::forward ? dec.to_end[t] : scale * dec.seen[t];
  }
  unsigned char* parts = smem + L.decayed_values();
#pragma unroll
  for (int i = 0; i < kPieces; ++i) {
    const int t = row(i);
    uint4 high, low;
    scaled_parts(x[i], factor[i], high, low);
    *reinterpret_cast<uint4*>(parts + tokens.offset(t, L.decayed_column(0) + c)) = high;
    *reinterpret_cast<uint4*>(parts + tokens.offset(t, L.decayed_column(1) + c)) = low;
  }
}

// From the head's state `start` to its final state `end` (null: zeros, not kept). `saved`: where a backward
// follows, the head's states before every chunk ([chunks][K][V] fp32), else null. state_grads: the same with
// the gradient of the final state as `start`, of the initial one as `end`, and in `saved` the gradient of
// the state after every chunk (the reverse scan's), chunks in reverse. kStartTransposed: `start` is the
// head's state stored transposed ([V][K]). kFinalApart: `start` goes into the layout's final state tile, not
// into S (which starts at zero).
template <int K, int kVs, int kGroups, int kStages, Pass kPass, bool kStartTransposed, bool kFinalApart>
__device__ void state_role(const Dims& d, const FusedLayout& L, unsigned char* smem, const float* start,
                           float* end, float* saved, int v0, const ChunkRun& run, int thread) {
  constexpr int kBlocks = K / wgmma::kRows;  // the state's 64-key row blocks, one accumulator each
  const FusedOperands at{L, shared_address(smem)};
  const int chunks = run.count;
  float S[kBlocks][kVs / 2];
  if constexpr (kStartTransposed)
    roles::load_state_transposed(S, start, K, v0, thread);
  else
    roles::load_state(S, start, d.V, thread);
  if constexpr (kFinalApart) {
    roles::publish_state<K>(S, smem + L.final_state(), smem + L.final_state(), 0, thread, kVs);
    wgmma::fence_shared_for_async();  // (the outputs' first wait for a state orders it before their reads)
#pragma unroll
    for (int m = 0; m < kBlocks; ++m)
#pragma unroll
      for (int r = 0; r < kVs / 2; ++r) S[m][r] = 0.0f;
  }
  for (int j = 0; j < chunks; ++j) {
    const int s = j % kStages, n = run.at<kReverseTime<kPass>>(j);
    if constexpr (kPass != Pass::state_grads)  // into chunk j's outputs warpgroup's buffer
      roles::hand_over_state<K, kGroups>(S, smem + L.state(0), smem + L.state(1), L.state_column(j % kGroups),
                                         j, thread);
    // S before chunk n in fp32 where a backward reads it (as the scan saves it)
    if (saved) roles::store_state(S, saved + std::int64_t(n) * K * d.V + v0, d.V, thread);
    stage_full(s).sync_unaligned();
    // (every thread of the warpgroup is past the last chunk's products: the stage's barrier counts them all)
    const ScalarDecays dec = ScalarDecays::carve(reinterpret_cast<float*>(smem + L.decays(s)), C);
    make_decayed_values<kVs, kPass>(L, smem, s, dec, d.scale, thread);
    wgmma::fence_shared_for_async();
    state_group().sync();
    const float whole = *dec.e_whole;
#pragma unroll
    for (int m = 0; m < kBlocks; ++m) {
#pragma unroll
      for (int r = 0; r < kVs / 2; ++r) S[m][r] *= whole;
      wgmma::hold(S[m]);
    }
    wgmma::fence();
#pragma unroll
    for (int m = 0; m < kBlocks; ++m)
#pragma unroll
      for (int step = 0; step < C / wgmma::kDepth; ++step) {
        const std::uint64_t transposed = at.keys_transposed(s, m, step);
        wgmma::product<kVs, 1, 1>(S[m], transposed, at.decayed_values(0, step), true);
        wgmma::product<kVs, 1, 1>(S[m], transposed, at.decayed_values(1, step), true);
      }
    wgmma::commit();
    wgmma::wait<0>();
#pragma unroll
    for (int m = 0; m < kBlocks; ++m) wgmma::hold(S[m]);
    if (j + kStages < chunks) stage_empty(s).arrive();
  }
  if (end) roles::store_state(S, end, d.V, thread);
}

// dk's pass (kFinalApart): o += e^{G_T - G_j} q_j S_final / scale (S_final the final state's gradient, kept
// apart in the layout's tile; `to_last` e^{G_T} over the chunk's end, `row_factor` e^{to end} / scale), its
// dots with `with`'s rows (load_dot_rows', read again here: held through the product, they spilled) into
// `final_dots`. Where `to_last` flushed to zero (at log sigmoid gates two chunks from the end: e^-87 is below
// fp32's normal range) the term is zeros, exactly: neither product nor dots run.
template <int K, int kVs, bool kDotRows>
__device__ void add_final_state_term(float (&o)[kVs / 2], const FusedOperands& at, int s, float to_last,
                                     const float (&row_factor)[2], const ChunkDotRows& rows,
                                     float* final_dots, int thread) {
  if (to_last == 0.0f) {  // (the same for the whole warpgroup: one value in shared memory)
    write_row_values({0.0f, 0.0f}, rows.length, final_dots, thread);
    return;
  }
  float f[kVs / 2];
  wgmma::fence();
  roles::product_with_state_parts<K, kVs>(
      f, [&](int step) { return at.queries(s, step); },
      [&](int part, int step) { return at.final_state(part, step); });
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::hold(f);
  const float factor[2] = {row_factor[0] * to_last, row_factor[1] * to_last};
#pragma unroll
  for (int r = 0; r < kVs / 2; ++r) f[r] *= factor[(r >> 1) & 1];
  std::uint32_t x[kVs / 4];
  load_dot_rows<kVs / 2, kDotRows>(x, rows, thread);
  write_row_dots(f, x, rows.length, final_dots, thread);
#pragma unroll
  for (int r = 0; r < kVs / 2; ++r) o[r] += f[r];
}

// The outputs' warpgroup where a pass has no outputs: it keeps the stages' barriers' counts (each stage is
// full for all three warpgroups and empty once its readers are done).
template <int kStages>
__device__ void follow_stages(int chunks) {
  for (int j = 0; j < chunks; ++j) {
    const int s = j % kStages;
    stage_full(s).sync_unaligned();
    if (j + kStages < chunks) stage_empty(s).arrive();
  }
}

// Outputs warpgroup `group` of kGroups: ring positions group, group + kGroups, ..., reading the state from
// its own buffer (the state warpgroup fills buffer n % kGroups for ring position n). `dots`: where the pass
// writes PassExtras's dots, this block's row of them.
template <int K, int kVs, int kGroups, int kStages, Pass kPass, bool kDots, bool kFinalApart, bool kDotRows>
__device__ void outputs_role(const Pointers<bf16>& p, const Dims& d, const FusedLayout& L,
                             unsigned char* smem, int b, int h, int v0, const bf16* dot_with, float* dots,
                             float* final_dots, const ChunkRun& run, int group, int thread) {
  constexpr int kSteps = C / wgmma::kDepth;  // P's 16-token column steps: the depth of P v
  constexpr bool kReverse = kPass == Pass::reverse;
  const FusedOperands at{L, shared_address(smem)};
  const int chunks = run.count, top = accumulator_element(thread, 0).row;  // this thread's rows: top, top + 8
  const float unscale = 1.0f / d.scale;  // (the reverse's state term has no scale: o is stored times scale)
  for (int n = group; n < chunks; n += kGroups) {
    const int s = n % kStages, t0 = run.at<kReverseTime<kPass>>(n) * C, length = min(C, d.T - t0);
    // the scores first (they need only the stage), then q S once the state is out: the scores' decays are
    // made while q S is on the tensor cores
    stage_full(s).sync_unaligned();
    float o[kVs / 2], P[C / 2];
    wgmma::fence();
#pragma unroll
    for (int step = 0; step < K / wgmma::kDepth; ++step)
      wgmma::product<C, 0, 0>(P, at.queries(s, step), at.keys(s, step), step > 0);
    wgmma::commit();
    state_full(group).sync();
    roles::product_with_state_parts<K, kVs>(
        o, [&](int step) { return at.queries(s, step); },
        [&](int part, int step) { return at.state(group, part, step); });
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::hold(P);

    const ScalarDecays dec = ScalarDecays::carve(reinterpret_cast<float*>(smem + L.decays(s)), C);
    std::uint32_t high[kSteps][4], low[kSteps][4];
    float diagonal[2] = {0.0f, 0.0f};
    decayed_scores<kSteps, kReverse, kDots>(P, dec, thread, high, low, diagonal);
    wgmma::wait<0>();
    wgmma::hold(o);
    if (n + kGroups < chunks) state_empty(group).arrive();
    // the state's term seen from each row: from the chunk's start (forward), to its end (reverse)
    const float row_factor[2] = {kReverse ? dec.to_end[top] * unscale : dec.seen[top],
                                 kReverse ? dec.to_end[top + 8] * unscale : dec.seen[top + 8]};
#pragma unroll
    for (int r = 0; r < kVs / 2; ++r) o[r] *= row_factor[(r >> 1) & 1];
    wgmma::hold(o);
    wgmma::fence();
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      const std::uint64_t v = at.values(s, step);
      wgmma::product<kVs, 1>(o, high[step], v, true);
      wgmma::product<kVs, 1>(o, low[step], v, true);
    }
    wgmma::commit();
    // the dots' rows, while P v runs (after it in dk's pass, whose registers are short at K = 128)
    constexpr bool kRowsEarly = !kFinalApart;
    const ChunkDotRows rows{smem + L.v(s), L.dot_rows_column(),
                            kDots ? dot_with + d.row(b, h, t0) * d.V + v0 : nullptr, std::int64_t(d.H) * d.V,
                            length};
    std::uint32_t x[kDots ? kVs / 4 : 1];
    if constexpr (kDots && kRowsEarly) load_dot_rows<kVs / 2, kDotRows>(x, rows, thread);
    wgmma::wait<0>();
    wgmma::hold(o);
    if constexpr (kDots) {
      if constexpr (!kRowsEarly) load_dot_rows<kVs / 2, kDotRows>(x, rows, thread);
      write_row_dots(o, x, length, dots + t0, thread);
      add_diagonal(o, diagonal, smem + L.v(s), thread);  // (before the stage is handed back)
      if constexpr (kFinalApart)
        add_final_state_term<K, kVs, kDotRows>(o, at, s,
                                               *reinterpret_cast<const float*>(smem + L.decay_to_last(s)),
                                               row_factor, rows, final_dots + t0, thread);
    }
    // through the stage's q tile, which every product that reads it has finished with
    store_outputs(o, smem + L.q(s), p.o + d.row(b, h, t0) * d.V + v0, std::int64_t(d.H) * d.V, length,
                  d.scale);
    if (n + kStages < chunks) stage_empty(s).arrive();
  }
}

// grid (B H, V / Vs, segments), (2 + kGroups) warpgroups (the loads, the state, kGroups outputs), L.bytes()
// of shared memory. `saved`: where a backward follows, the state before every chunk ([B H][chunks][K][V]
// fp32), else null. state_grads: p's k is q, its v do, its h0 and ht the gradients of the final and the
// initial state; `saved` the gradient of the state after every chunk. kDots: a pass in the state's transpose
// (PassExtras). A forward's block takes segment blockIdx.z from its start state (the first from h0) and only
// the last segment's writes ht.
template <int K, int kVs, int kGroups, Pass kPass, bool kDots>
__global__ void __launch_bounds__((2 + kGroups) * kGroup, 1)
    scalar_fused_forward_kernel(Pointers<bf16> p, Dims d, float* saved, PassExtras extras, Segments seg) {
  static_assert(kPass != Pass::state_grads || (kGroups == 1 && !kDots),
                "the state gradients have no outputs");
  constexpr bool kFinalApart = kDots && kPass == Pass::reverse;
  // the plan known at compile time, every offset folded (a run-time one cost registers and, at K = 128,
  // spills: version 103); launch_fused sizes the block by the same
  constexpr FusedLayout L = fused_pass_layout(K, kVs, kGroups, kFinalApart, kDots);
  constexpr int kStages = fused_stages(kGroups);
  constexpr bool kDotRows = L.dot_rows;
  extern __shared__ unsigned char raw[];
  const BlockPlace at = block_place(raw, d.H, K, d.V, kVs, p.h0, p.ht);
  const ChunkRun run = segment_run(seg, d.chunks());
  if (at.role == 0) {
    loads_role<K, kVs, kStages, fused_loads_ahead(kGroups), kPass, kFinalApart, kDotRows>(
        p, extras.dot_with, d, L, at.smem, at.b, at.h, at.v0, run, at.thread);
  } else if (at.role == 1) {
    const std::int64_t head = std::int64_t(at.bh) * K * d.V;
    const float* start = kDots ? (p.h0 ? p.h0 + head : nullptr) : segment_start(seg, at, K, d.V);
    state_role<K, kVs, kGroups, kStages, kPass, kDots, kFinalApart>(
        d, L, at.smem, start, segment_end(seg, at), saved ? saved + head * d.chunks() : nullptr, at.v0, run,
        at.thread);
  } else if constexpr (kPass != Pass::state_grads) {
    const std::int64_t row = (std::int64_t(blockIdx.y) * d.B * d.H + at.bh) * d.T;  // the block's dots
    outputs_role<K, kVs, kGroups, kStages, kPass, kDots, kFinalApart, kDotRows>(
        p, d, L, at.smem, at.b, at.h, at.v0, extras.dot_with, kDots ? extras.dots + row : nullptr,
        kFinalApart ? extras.final_dots + row : nullptr, run, at.role - 2, at.thread);
  } else {
    follow_stages<kStages>(run.count);
  }
}

// A pass with fused_output_groups(Vs) outputs warpgroups; the state gradients' pass with one (it has no
// outputs).
template <Pass kPass, bool kDots = false>
void launch_fused(const Pointers<bf16>& p, const Dims& d, float* saved, const DeviceLimits& limits,
                  cudaStream_t stream, const PassExtras& extras = {}, Segments seg = {}) {
  seg = whole_or_split(seg, d.chunks());
  const int Vs = fused_value_slice(d.B * d.H, d.V, limits.multiprocessors);
  with_one_of<64, 128>(d.K, [&](auto K) {
    with_one_of<32, 64>(Vs, [&](auto kVs) {
      constexpr int kGroups = kPass != Pass::state_grads ? fused_output_groups(kVs.value) : 1;
      const FusedLayout L =
          fused_pass_layout(K.value, kVs.value, kGroups, kDots && kPass == Pass::reverse, kDots);
      const auto kernel = scalar_fused_forward_kernel<K.value, kVs.value, kGroups, kPass, kDots>;
      allow_shared_memory(kernel, L.bytes());
      kernel<<<dim3(unsigned(d.B * d.H), unsigned(d.V / kVs.value), unsigned(seg.plan.count)),
               (2 + kGroups) * kGroup, L.bytes(), stream>>>(p, d, saved, extras, seg);
      FLA_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace
}  // namespace chunk

namespace {

// The shapes, dtype, chunk size and GPU the fused kernel takes.
bool fused_kernel_applies(const Problem& p, const DeviceLimits& limits) {
  if (!wgmma::built_for_sm90a() || limits.compute_capability != 90) return false;
  return p.dtype == DType::bf16 && p.chunk_size == chunk::kFusedChunk && (p.K == 64 || p.K == 128) &&
         p.V % 32 == 0;
}
chunk::FusedLayout forward_layout(int K, int Vs) {
  return chunk::fused_layout(K, Vs);
}

}  // namespace

bool simple_gla_fused_kernel_fills(const Problem& p, const DeviceLimits& limits) {
  return fused_kernel_applies(p, limits) && chunk::fused_blocks_fit(p, limits, forward_layout);
}

bool simple_gla_fused_forward_runs(const Problem& p, const DeviceLimits& limits) {
  return fused_kernel_applies(p, limits) && chunk::fused_forward_fits(p, limits, forward_layout);
}

void simple_gla_fused_forward(const ForwardCall& call, const DeviceLimits& limits,
                              const chunk::FusedSegments& segments, const float* starts) {
  const chunk::Dims d = chunk::make_dims(call.problem);
  Pointers<__nv_bfloat16> p = bind_inputs<__nv_bfloat16>(kSimpleGlaBinding, call.inputs);
  p.o = call.outputs.at(kSimpleGlaBinding.o).as<__nv_bfloat16>();
  p.ht = call.outputs.at(kSimpleGlaBinding.ht).as<float>();
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, call.problem);
  // where a backward follows that reads the states (not the fused passes'), the states
  float* saved =
      call.save_for_backward && !simple_gla_fused_backward_runs(call.problem, limits) ? ws.states : nullptr;
  chunk::launch_fused<chunk::Pass::forward>(p, d, saved, limits, call.stream, {}, {segments, starts});
}

bool simple_gla_fused_backward_runs(const Problem& p, const DeviceLimits& limits) {
  Problem transposed = p;  // dq's and dk's passes run in the state's transpose: V keys, K values
  std::swap(transposed.K, transposed.V);
  // dq's and dk's passes (dk's with the final state apart) with their dots' rows
  const auto pass_fits = [&](bool final_apart) {
    return chunk::fused_blocks_fit(transposed, limits, [&](int K, int Vs) {
      return chunk::fused_pass_layout(K, Vs, chunk::fused_output_groups(Vs), final_apart, true);
    });
  };
  return simple_gla_fused_kernel_fills(p, limits) && simple_gla_fused_kernel_fills(transposed, limits) &&
         pass_fits(false) && pass_fits(true);
}

// With G_i the log decays summed up to token i, e^{G_i - G_j} between two tokens, S_i the state after token i
// and dS_i its gradient, each gradient is one pass of the kernel with the roles of q, k and v taken by
// others:
//   dq_i = scale (e^{G_i} S_0 do_i + sum_{j <= i} e^{G_i - G_j} (do_i . v_j) k_j)   forward: do, v, k; S^T
//   dk_j = e^{G_T - G_j} dS_T v_j + scale sum_{i >= j} e^{G_i - G_j} (v_j . do_i) q_i  reverse: v, do, q;
//   dS^T dv_j = e^{G_T - G_j} dS_T^T k_j + scale sum_{i >= j} e^{G_i - G_j} (k_j . q_i) do_i reverse: k, q,
//   do; dS
// (the reverse pass's update is dS's: dS_{before} = e^{chunk total} dS + scale sum q_i e^{seen_i} do_i^T).
// No state goes to memory: each pass carries its own through the chunks, as the forward does. dq's and dk's
// passes also give q . dq and k . dk per token for dg (dk's with the final state's term apart).
void simple_gla_fused_backward(const BackwardCall& call, const DeviceLimits& limits) {
  using chunk::Pass;
  const chunk::Dims d = chunk::make_dims(call.problem);
  chunk::Dims transposed = d;
  std::swap(transposed.K, transposed.V);
  const Pointers<__nv_bfloat16> in = bind_inputs<__nv_bfloat16>(kSimpleGlaBinding, call.inputs);
  const GradPointers<__nv_bfloat16> g =
      bind_grads<__nv_bfloat16>(kSimpleGlaBinding, call.grad_outputs, call.grads);
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, call.problem);
  // the dots' rows in the state gradients' room (no state is saved here)
  const int key_slices = chunk::fused_dot_slices(d.B * d.H, d.K, limits.multiprocessors);
  const std::int64_t rows = std::int64_t(key_slices) * d.B * d.H * d.T;
  const chunk::GateGradDots dots{
      ws.dstates, ws.dstates + rows, ws.dstates + 2 * rows, key_slices, in.g, in.h0, g.d_ht};

  // The passes are independent of one another: dk's and dv's on side streams, so that each pass's blocks take
  // the SMs the others free (a block takes an SM's room) with no gap between launches. dv's is joined last,
  // after the gate scan (which reads only dq's and dk's dots); where the scan runs measured no difference
  // (kernels/notes/chunk.md, versions 103f and 104: the passes' SM time is the cost).
  ForkedStream dv_side(call.stream, 1);
  {
    ForkedStream dk_side(call.stream, 0);
    Pointers<__nv_bfloat16> p{};
    p.g = in.g;
    p.q = g.d_o, p.k = in.v, p.v = in.k, p.h0 = in.h0, p.o = g.dq, p.ht = nullptr;
    chunk::launch_fused<Pass::forward, true>(p, transposed, nullptr, limits, call.stream, {in.q, ws.dstates});
    p.q = in.v, p.k = g.d_o, p.v = in.q, p.h0 = g.d_ht, p.o = g.dk;
    chunk::launch_fused<Pass::reverse, true>(p, transposed, nullptr, limits, dk_side.side(),
                                             {in.k, ws.dstates + rows, ws.dstates + 2 * rows});
    p.q = in.k, p.k = in.q, p.v = g.d_o, p.h0 = g.d_ht, p.o = g.dv, p.ht = g.dh0;
    chunk::launch_fused<Pass::reverse>(p, d, nullptr, limits, dv_side.side());
  }  // (dk's joined: the scan reads dq's and dk's dots)
  chunk::launch_scalar_gate_grads(dots, d, g.dg, call.stream);
}

void simple_gla_fused_state_grads(const BackwardCall& call, float* dstates, const DeviceLimits& limits) {
  const chunk::Dims d = chunk::make_dims(call.problem);
  const Pointers<__nv_bfloat16> in = bind_inputs<__nv_bfloat16>(kSimpleGlaBinding, call.inputs);
  const GradPointers<__nv_bfloat16> g =
      bind_grads<__nv_bfloat16>(kSimpleGlaBinding, call.grad_outputs, call.grads);
  Pointers<__nv_bfloat16> p{};  // the forward's roles: q as k, do as v, the state gradients as h0 and ht
  p.k = in.q, p.v = g.d_o, p.g = in.g, p.h0 = g.d_ht, p.ht = g.dh0;
  chunk::launch_fused<chunk::Pass::state_grads>(p, d, dstates, limits, call.stream);
}

}  // namespace flabench
