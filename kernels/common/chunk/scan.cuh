// The one sequential part of the chunk variant, shared by the forward and the backward: over a head's chunks,
//   S <- e^{whole_n} S + X_n^T Y_n,
// X_n the chunk's prepared [C][K] operand and Y_n its rows of an input [B, T, H, V]. Forward: X = k e^{decay
// after it to the chunk's end}, Y = v, chunks in order, S the state (saved before every chunk for the output
// pass). Backward: X = scale q e^{decay seen from the chunk's start}, Y = do, chunks in reverse, S the
// gradient of the state after the chunk. The operands are prepared for all chunks at once (prepare kernel),
// so the sequential loop holds nothing but the product; a fifth warp copies the next chunks' operands
// (cp.async) while the four others compute.
#pragma once

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/common/shared_address.cuh"
#include "kernels/common/stage_barrier.cuh"

namespace flabench::chunk {

constexpr int kPrepareThreads = 256;
constexpr int kScanMathThreads = 128;  // 4 warps, each a 16 x 16 piece of the 32 x 32 state tile
constexpr int kScanThreads = kScanMathThreads + 32;  // and the copy warp
// The independent accumulators a chunk's product is split over: two shorten the step where it waits on
// the tensor cores' latency; the scalar gate's products are in two parts already, and a second chain
// there cost more instructions than it saved (notes, version 49).
template <bool kScalarGate>
constexpr int kScanChains = kScalarGate ? 1 : 2;

enum class Operand { keys_to_end, queries_from_start };
// bf16's operand in two planes (workspace.cuh, kPreparedParts): only the scan reads the second, so a
// backward whose states another variant's forward saved (no forward scan runs) skips writing the keys'.
enum class SecondPart { written, skipped };

// The scan's operand X for a chunk's staged rows (k, or q; `cols` channels from `rows`, row stride `ld`,
// their decays in dec) into `out` ([C] rows, `out_ld` elements apart; bf16's second part `plane` elements on,
// where second_part says): each thread kVec neighbouring channels of a row, their decays read as 16-byte
// vectors (Decays), X leaving in 16-byte stores. A 16-bit X's 8 channels are read in first_half's order
// (decays.cuh: no bank conflicts) and put back in order as they are packed. The whole block calls this.
template <class T, Operand kind>
__device__ void write_prepared(const Decays& dec, const float* rows, int ld, int C, int cols, float scale,
                               Prepared<T>* out, int out_ld, std::int64_t plane, bool second_part) {
  using X = Prepared<T>;
  constexpr bool keys = kind == Operand::keys_to_end;
  constexpr int kVec = 16 / sizeof(X);
  const Divisor vectors(cols / kVec);  // to a row
  for (int idx = threadIdx.x; idx < C * cols / kVec; idx += int(blockDim.x)) {
    const int t = vectors.div(idx), c0 = vectors.mod(idx) * kVec;
    const int order = kVec == 8 ? first_half(vectors.mod(idx)) : 0;
    float value[kVec], exponent[kVec];  // channel c0 + (e ^ order) at e
#pragma unroll
    for (int e = 0; e < kVec; e += 4)
      *reinterpret_cast<float4*>(value + e) =
          *reinterpret_cast<const float4*>(rows + t * ld + c0 + (e ^ order));
    if constexpr (keys)
      dec.after(t, dec.subs, c0, exponent, order);
    else
      dec.seen_from_start(t, c0, exponent, order);
#pragma unroll
    for (int e = 0; e < kVec; ++e)
      value[e] = keys ? value[e] * exp_flushed(exponent[e]) : scale * value[e] * exp_flushed(exponent[e]);
    // channel c0 + e's value (both indices constant: a select, not a local-memory array)
    const auto in_order = [&](int e) { return order ? value[(e ^ 4) % kVec] : value[e]; };
    uint4 packed;
    X* at = out + std::int64_t(t) * out_ld + c0;
    if constexpr (kPreparedParts<T> == 2) {
      uint4 low;
      auto *high_pairs = reinterpret_cast<std::uint32_t*>(&packed),
           *low_pairs = reinterpret_cast<std::uint32_t*>(&low);
#pragma unroll
      for (int e = 0; e < kVec; e += 2) {
        const Parts<X> parts = split<X>(in_order(e), in_order(e + 1));
        high_pairs[e / 2] = parts.high, low_pairs[e / 2] = parts.low;
      }
      if (second_part) *reinterpret_cast<uint4*>(at + plane) = low;
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) reinterpret_cast<X*>(&packed)[e] = from_float<X>(in_order(e));
    }
    *reinterpret_cast<uint4*>(at) = packed;
  }
}

// One block per (batch, head, chunk): the chunk's summed log decay per channel and the scan's operand X.
// k (or q) and per-key gates are staged in 16-byte loads and X leaves in 16-byte stores: the kernel moves
// three [C][K] tiles and does little else, so its loads and stores are what it costs. Q: the queries' type
// (the backward's; `queries` in place of p.q), fp32 where a caller has them unrounded (gsa's passes).
// second_part: whether bf16's second part is written (SecondPart).
template <class Form, class T, Operand kind, class Q = T>
__global__ void __launch_bounds__(kPrepareThreads)
    chunk_prepare_kernel(Pointers<T> p, Dims d, Workspace ws, const Q* queries, bool second_part) {
  extern __shared__ float smem[];
  constexpr bool keys = kind == Operand::keys_to_end;
  const int K = d.K, C = d.C;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y;
  const int t0 = n * C;
  Decays dec = Decays::carve(smem, C, K);
  float* rows = smem + Decays::floats(C, K);  // [C][K]: k (or q)
  if constexpr (keys)
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, 0, token_rows(p.k, d, b, h, t0, C, K, 0, K, rows, K));
  else
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, 0, token_rows(queries, d, b, h, t0, C, K, 0, K, rows, K));
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  auto* out = reinterpret_cast<Prepared<T>*>(keys ? ws.keys_to_end : ws.queries_from_start) + chunk * C * K;
  // bf16's second part, a plane later (workspace.cuh, kPreparedParts)
  const std::int64_t plane = std::int64_t(gridDim.x) * gridDim.y * C * K;
  write_prepared<T, kind>(dec, rows, K, C, K, d.scale, out, K, plane, second_part);
  if constexpr (keys)  // the backward reuses the forward's, as it does the states
    for (int c = threadIdx.x; c < K; c += kPrepareThreads) ws.whole[chunk * K + c] = dec.whole(c);
}

template <class T>
struct Scan {
  const Prepared<T>* operand;  // X: [B*H, chunks, C, K] (bf16's low part a plane on); with a scalar gate k
                               // (or q) itself, [B, T, H, K]
  const T* rows;               // Y: [B, T, H, V]
  const float* whole;          // [B*H, chunks, K]; with a scalar gate its factors (kFactorRow a chunk)
  const float* initial = nullptr;  // [B*H, K, V] (null: zeros)
  float* saved = nullptr;          // [B*H, chunks, K, V]: S before each chunk's update (null: not kept)
  float* last = nullptr;           // [B*H, runs, K, V]
  bool reverse = false;
  // Runs (fused_plan.h, FusedSegments; the backward's, state_grad_runs.h): with run_chunks set, each of
  // `runs` blocks of a tile (the grid's y) takes the run_chunks chunks from run_chunks times its index on (in
  // the scan's order) from `initial`, its end state to `last`, and where `decays` is set the product of its
  // chunks' decays per key to [B*H, runs, K]; else one run over every chunk.
  int runs = 1, run_chunks = 0;
  float* decays = nullptr;
  // Where set, for every chunk the product of the decays per key of the chunks its run took before it (the
  // factor of the run's start state in the state saved before it: state_grad_runs.h), [B*H, chunks, K]
  float* saved_decays = nullptr;
};

// One block per (batch, head, 32 key channels, 32 values) and run, the S tile in the warps' accumulators.
// With tiles_together a head's tiles are neighbours in the grid, so that they run side by side and read each
// chunk's X and Y rows from DRAM about once between them (L2 serving the others): with the heads
// neighbouring, 4,4096,16,128's 1024 blocks ran a head's tiles in different waves (the forward's scan moved
// 0.65 GB, 0.45 GB together). Where every block has an SM of its own the heads neighbour, as measured
// faster there (1,24576,16,64's 64 blocks; kernels/notes/chunk.md, version 45). The
// chunks' operands arrive through a ring of kStages shared-memory stages filled by cp.async, the next
// kStages - 1 chunks in flight while one computes: each step is short (a few products), so a load issued
// one step ahead arrived late (the step took ~1.4 us, about a loaded DRAM round trip; notes, version 12).
// A stage's mbarriers (StageBarrier) hand it from the copy warp to the math warps and back, so that no
// warp waits on a block-wide barrier: a math warp waits only for its chunk's copies, the copy warp only
// for the stage it refills to be read (a __syncthreads a step made the step its block's slowest round;
// notes, version 69).
// One warp issues every copy and the four others only compute: where a warp is alone on its scheduler (few
// heads) the step is the latency of its instructions in a row, and spread over the four, each copy's
// address work (~45 instructions) made two thirds of a step (notes, version 47).
// kScalarGate (bf16; simple_gla's forward and backward): X is k (or q), each token's row scaled by its factor
// (workspace.cuh, kFactorRow) on its way into the tensor cores, in two bf16 parts.
// Four blocks an SM, as the 48 KiB of shared memory allow (the D = 128 shapes run in waves of them): the
// product's own accumulators took bf16 to 104 registers a thread without the bound, room for three.
template <class T, bool kScalarGate = false>
__global__ void __launch_bounds__(kScanThreads, kScanBlocksPerSm)
    chunk_scan_kernel(Scan<T> scan, Dims d, bool tiles_together) {
  static_assert(!kScalarGate || std::is_same_v<T, __nv_bfloat16>, "the scalar gate's scan is bf16's");
  // Operands move in 16-byte vectors: kVec elements, kRow vectors to a tile's row of 32 (X: of Prepared<T>).
  using X = Prepared<T>;
  constexpr int kTile = kScanTile, kVec = 16 / sizeof(T), kRow = kTile / kVec, kVecX = 16 / sizeof(X),
                kRowX = kTile / kVecX;
  // fp16 goes to the tensor cores as bf16 in two parts: fp32 X keeps its range, and both keep 16 bits.
  using Op = std::conditional_t<std::is_same_v<T, __half>, __nv_bfloat16, T>;
  constexpr Exact exact = std::is_same_v<T, __half> ? Exact::both : Exact::none;
  // bf16's X in its two planes (workspace.cuh, kPreparedParts); the scalar gate's is k (or q) itself.
  constexpr bool kLowPart = kPreparedParts<T> == 2 && !kScalarGate;
  // [C][32] of X (and of its low part) and of T per stage, each row one vector longer: the 8 rows that
  // ldmatrix reads at once fall on different banks. The scalar gate takes four stages (three chunks in
  // flight), bf16's two planes and fp16 (its X fp32) three, fp32 two: what the 48 KiB of static shared
  // memory holds.
  constexpr int kStages = std::is_same_v<T, float> ? 2 : kScalarGate ? 4 : 3;
  constexpr int kLdX = (kRowX + 1) * kVecX, kLdY = (kRow + 1) * kVec;
  __shared__ uint4 x_tiles[kStages][kMaxChunk * (kRowX + 1)];
  __shared__ uint4 x_low_tiles[kLowPart ? kStages : 1][kLowPart ? kMaxChunk * (kRowX + 1) : 1];
  __shared__ uint4 y_tiles[kStages][kMaxChunk * (kRow + 1)];
  constexpr int kWholes = kScalarGate ? kFactorRow : kTile;
  __shared__ __align__(16) float wholes[kStages][kWholes];
  __shared__ StageBarrier stage_barriers[kStages];
  if (threadIdx.x < kStages)  // full: the copy warp's lanes arrive; empty: every math thread
    stage_barriers[threadIdx.x].init(kScanThreads - kScanMathThreads, kScanMathThreads);
  const int K = d.K, V = d.V, C = d.C, chunks = d.chunks();
  // the block's run: its first step in the scan's order and its steps
  const int first_step = blockIdx.y * scan.run_chunks,
            steps = scan.run_chunks ? min(scan.run_chunks, chunks - first_step) : chunks;
  const int tiles = scan_tiles(K) * scan_tiles(V), heads = d.B * d.H;
  const int bh = tiles_together ? blockIdx.x / tiles : blockIdx.x % heads,
            tile = tiles_together ? blockIdx.x % tiles : blockIdx.x / heads, b = bh / d.H, h = bh % d.H;
  const int c0 = tile % scan_tiles(K) * kTile, j0 = tile / scan_tiles(K) * kTile;
  const int warp = threadIdx.x / 32, m0 = (warp / 2) * 16, n0 = (warp % 2) * 16;
  const Lane lane;
  const auto chunk_at = [&](int step) {
    return scan.reverse ? chunks - 1 - first_step - step : first_step + step;
  };
  const bool copier = threadIdx.x >= kScanMathThreads;  // the copy warp

  const auto in_tile = [&](int row, int col) { return c0 + row < K && j0 + col < V; };
  const auto at = [&](int row, int col) { return std::int64_t(c0 + row) * V + j0 + col; };
  float S[2][4];  // the math warps' pieces
  // Values in pairs (V is a multiple of 8): one 8-byte access each.
  for_each_pair(S, 2, m0, n0, [&](int row, int col, float& first, float& second) {
    const float2 s =
        !copier && scan.initial && in_tile(row, col)
            ? *reinterpret_cast<const float2*>(scan.initial + std::int64_t(bh) * K * V + at(row, col))
            : make_float2(0.f, 0.f);
    first = s.x, second = s.y;
  });
  // The copy warp's lane takes vector lane % kRowX of rows lane / kRowX + e 32 / kRowX of X (and likewise
  // of Y): a fixed column, rows a fixed stride apart, so a step's sources are one base and a running sum,
  // and its shared-memory targets one register and immediates.
  constexpr int kStepX = 32 / kRowX, kStepY = 32 / kRow, kCopiesX = kMaxChunk / kStepX,
                kCopiesY = kMaxChunk / kStepY;
  const int lane_id = threadIdx.x & 31, x_col = (lane_id % kRowX) * kVecX, x_t = lane_id / kRowX,
            y_col = (lane_id % kRow) * kVec, y_t = lane_id / kRow;
  const bool x_in = c0 + x_col < K, y_in = j0 + y_col < V, lanes_in = __all_sync(~0u, x_in && y_in);
  const std::int64_t x_stride = std::int64_t(kStepX) * (kScalarGate ? d.H * K : K),
                     y_stride = std::int64_t(kStepY) * d.H * V;
  const unsigned x_dst = shared_address(&x_tiles[0][x_t * (kRowX + 1) + lane_id % kRowX]),
                 y_dst = shared_address(&y_tiles[0][y_t * (kRow + 1) + lane_id % kRow]),
                 x_low_dst =
                     kLowPart ? shared_address(&x_low_tiles[0][x_t * (kRowX + 1) + lane_id % kRowX]) : 0;
  // X's low plane (the prepare kernel's layout: B H chunks C K elements after the high one)
  const std::int64_t low_plane = std::int64_t(heads) * chunks * C * K;
  // The copy warp's sources for the next chunk it fetches (chunks in order from chunk_at(0): each fetch
  // moves them on by one chunk's rows).
  const int first = chunk_at(0), direction = scan.reverse ? -1 : 1;
  const std::int64_t first_chunk = std::int64_t(bh) * chunks + first;
  const X* x_next = kScalarGate ? scan.operand + d.row(b, h, first * C + x_t) * K + c0 + x_col
                                : scan.operand + (first_chunk * C + x_t) * K + c0 + x_col;
  const T* y_next = scan.rows + d.row(b, h, first * C + y_t) * V + j0 + y_col;
  const float* whole_next =
      scan.whole + first_chunk * (kScalarGate ? kFactorRow : K) + (kScalarGate ? 0 : c0) + 4 * lane_id;
  const std::int64_t x_chunk = direction * std::int64_t(C) * (kScalarGate ? d.H * K : K),
                     y_chunk = direction * std::int64_t(C) * d.H * V,
                     whole_chunk = direction * (kScalarGate ? kFactorRow : K);
  // The copy warp starts the copies of step's chunk into its stage once the math warps have read the
  // stage's previous chunk, and has the stage's `full` barrier hear of them when they land. Steps come in
  // order.
  const auto fetch = [&](int step) {
    const int n = chunk_at(step), stage = step % kStages, length = min(C, d.T - n * C);
    if (step >= kStages) stage_barriers[stage].wait_empty((step / kStages - 1) & 1);
    const unsigned xs = x_dst + stage * unsigned(sizeof(x_tiles[0])),
                   ys = y_dst + stage * unsigned(sizeof(y_tiles[0])),
                   xls = x_low_dst + stage * unsigned(sizeof(x_low_tiles[0]));
    if (length == C && lanes_in) {  // every row in the sequence and the tile: no test per copy
      with_one_of<16, 32, kMaxChunk>(C, [&](auto rows) {
        constexpr int kRows = decltype(rows)::value;
        const X* x = x_next;
#pragma unroll
        for (int e = 0; e < kRows / kStepX; ++e, x += x_stride) {
          cp_async16_or_zeros_to(xs + e * kStepX * (kRowX + 1) * 16, x, true);
          if constexpr (kLowPart)
            cp_async16_or_zeros_to(xls + e * kStepX * (kRowX + 1) * 16, x + low_plane, true);
        }
        const T* y = y_next;
#pragma unroll
        for (int e = 0; e < kRows / kStepY; ++e, y += y_stride)
          cp_async16_or_zeros_to(ys + e * kStepY * (kRow + 1) * 16, y, true);
      });
    } else {
#pragma unroll
      for (int e = 0; e < kCopiesX; ++e) {
        if (e * kStepX >= C) break;  // the same for the whole warp (C is a multiple of kStepX)
        const bool ok = x_in && (!kScalarGate || x_t + e * kStepX < length);
        cp_async16_or_zeros_to(xs + e * kStepX * (kRowX + 1) * 16, ok ? x_next + e * x_stride : scan.operand,
                               ok);
        if constexpr (kLowPart)
          cp_async16_or_zeros_to(xls + e * kStepX * (kRowX + 1) * 16,
                                 ok ? x_next + e * x_stride + low_plane : scan.operand, ok);
      }
#pragma unroll
      for (int e = 0; e < kCopiesY; ++e) {
        if (e * kStepY >= C) break;
        const bool ok = y_in && y_t + e * kStepY < length;
        cp_async16_or_zeros_to(ys + e * kStepY * (kRow + 1) * 16, ok ? y_next + e * y_stride : scan.rows, ok);
      }
    }
    if constexpr (kScalarGate) {
      if (lane_id < kFactorRow / 4) cp_async16_or_zeros(&wholes[stage][4 * lane_id], whole_next, true);
    } else if (lane_id < kTile / 4) {
      const bool in = c0 + 4 * lane_id < K;
      cp_async16_or_zeros(&wholes[stage][4 * lane_id], in ? whole_next : scan.whole, in);
    }
    x_next += x_chunk, y_next += y_chunk, whole_next += whole_chunk;
    stage_barriers[stage].copies_issued();
  };
  __syncthreads();  // the barriers initialised
  if (copier) {
    for (int step = 0; step < steps; ++step) fetch(step);
    cp_async_wait_all();  // leaves only once its copies (and their arrivals) are done
    return;
  }
  // the saved states of the block's tile, chunk by chunk (backwards when reverse); the lane's pairs' places
  // in a state (-1 outside the tile), made once
  int saved_at[4];
  {
    int e = 0;
    for_each_pair(S, 2, m0, n0, [&](int row, int col, float&, float&) {
      saved_at[e++] = in_tile(row, col) ? row * V + col : -1;
    });
  }
  // (an offset, not a pointer: scan.saved may be null)
  std::int64_t saved = (std::int64_t(bh) * chunks + chunk_at(0)) * K * V + j0 + std::int64_t(c0) * V;
  const std::int64_t saved_step = scan.reverse ? -std::int64_t(K) * V : std::int64_t(K) * V;
  float decayed[2] = {1.0f, 1.0f};  // the run's decay of the thread's two rows
  for (int step = 0; step < steps; ++step, saved += saved_step) {
    const int stage = step % kStages;
    stage_barriers[stage].wait_full(step / kStages & 1);
    const X* xs = reinterpret_cast<const X*>(x_tiles[stage]);
    const X* xls = reinterpret_cast<const X*>(x_low_tiles[kLowPart ? stage : 0]);
    const T* ys = reinterpret_cast<const T*>(y_tiles[stage]);
    // The chunk's product X^T Y into accumulators of its own (kScanChains, k steps taking turns): it does
    // not wait for the state's decay, and two chains are each half as long.
    float P[kScanChains<kScalarGate>][2][4] = {};
    with_one_of<16, 32, kMaxChunk>(C, [&](auto rows) {
      constexpr int kRows = decltype(rows)::value;
#pragma unroll
      for (int k0 = 0; k0 < kRows; k0 += 16) {
        float(&acc)[2][4] = P[k0 / 16 % kScanChains<kScalarGate>];
        if constexpr (kScalarGate) {  // k's fragments times the tokens' factors, in two parts
          std::uint32_t raw[4], a[2][4];
          a_stored_km(raw, xs, kLdX, m0, k0);
          scale_token_pairs(raw, wholes[stage] + k0 + 2 * lane.pair, a);
          mma_b_stored_kn<Op>(acc, 2, a, ys, kLdY, k0, n0);
        } else if constexpr (kLowPart) {  // fragments straight from the bf16 tiles, high then low
          std::uint32_t a[2][4];
          a_stored_km(a[0], xs, kLdX, m0, k0);
          a_stored_km(a[1], xls, kLdX, m0, k0);
          mma_b_stored_kn<Op>(acc, 2, a, ys, kLdY, k0, n0);
        } else {
          mma_k16<Op, 2, exact>(
              acc, 2, m0, n0, k0, [&](int c, int s) { return to_float(xs[s * kLdX + c]); },
              [&](int s, int j) { return to_float(ys[s * kLdY + j]); });
        }
      }
    });
    const float top = kScalarGate ? wholes[stage][kMaxChunk] : exp_flushed(wholes[stage][m0 + lane.group]),
                bottom = kScalarGate ? top : exp_flushed(wholes[stage][m0 + lane.group + 8]);
    stage_barriers[stage].consumed();  // the copy warp may refill it while the state moves on
    int e = 0;  // the pair's place in S (and P): for_each_pair visits them in storage order
    for_each_pair(S, 2, m0, n0, [&](int row, int col, float& first, float& second) {
      if (scan.saved && saved_at[e / 2] >= 0) store_pair(scan.saved + saved + saved_at[e / 2], first, second);
      // the run's decay before this chunk, by the threads of the head's first value tile that hold its
      // first column
      if (scan.saved_decays && j0 + col == 0 && c0 + row < K)
        scan.saved_decays[(std::int64_t(bh) * chunks + chunk_at(step)) * K + c0 + row] =
            decayed[row - m0 < 8 ? 0 : 1];
      const float decay = row - m0 < 8 ? top : bottom;
      float p0 = (&P[0][0][0])[e], p1 = (&P[0][0][0])[e + 1];
#pragma unroll
      for (int c = 1; c < kScanChains<kScalarGate>; ++c) p0 += (&P[c][0][0])[e], p1 += (&P[c][0][0])[e + 1];
      first = fmaf(first, decay, p0), second = fmaf(second, decay, p1);
      e += 2;
    });
    decayed[0] *= top, decayed[1] *= bottom;
  }
  const std::int64_t run = std::int64_t(bh) * gridDim.y + blockIdx.y;
  for_each_pair(S, 2, m0, n0, [&](int row, int col, float& first, float& second) {
    if (in_tile(row, col)) store_pair(scan.last + run * K * V + at(row, col), first, second);
    // the run's decays, by the threads of the head's first value tile that hold its first column
    if (scan.decays && j0 + col == 0 && c0 + row < K)
      scan.decays[run * K + c0 + row] = decayed[row - m0 < 8 ? 0 : 1];
  });
}

}  // namespace flabench::chunk
