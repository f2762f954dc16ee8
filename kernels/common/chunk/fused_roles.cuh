// The pieces the one-kernel chunk forwards on Hopper (fused_plan.h) share between their three warpgroups: the
// named barriers that hand stages and states from one role to another, and the state warpgroup's moves of its
// fp32 state S (K x Vs, in 64-key row blocks of wgmma accumulators) to and from memory.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/chunk/swizzled_fragments.h"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/named_barrier.cuh"
#include "kernels/common/shared_address.cuh"
#include "kernels/common/wgmma/layout.h"
#include "kernels/common/wgmma/wgmma.cuh"

namespace flabench::chunk::roles {

constexpr int kGroup = 128;  // threads a warpgroup

// The barriers between the roles (ids; 0 is __syncthreads's). A stage is full when the loads have made it
// (the loads arrive, the readers wait) and empty when its readers are done (they arrive, the loads wait);
// each buffer of the state likewise between the state and the outputs warpgroup that reads it. A reader skips
// its arrival where no one will wait for it (the last chunks), so that no barrier is left half-way at the
// end. The stages' barriers count three warpgroups: the loads, the state and the chunk's outputs warpgroup
// (where a block has two, they take the chunks in turn); a full stage is waited on by two roles from their
// own loops, so through sync_unaligned.
constexpr int kStageThreads = 3 * kGroup;
constexpr int kStateBuffers = 2;  // at most: one for each outputs warpgroup
__device__ inline NamedBarrier stage_full(int s) {
  return {1 + s, kStageThreads};
}
__device__ inline NamedBarrier stage_empty(int s) {
  return {1 + kMaxFusedStages + s, kStageThreads};
}
__device__ inline NamedBarrier state_full(int buffer = 0) {
  return {1 + 2 * kMaxFusedStages + buffer, 2 * kGroup};
}
__device__ inline NamedBarrier state_empty(int buffer = 0) {
  return {1 + 2 * kMaxFusedStages + kStateBuffers + buffer, 2 * kGroup};
}
// the state warpgroup among itself
__device__ inline NamedBarrier state_group() {
  return {1 + 2 * kMaxFusedStages + 2 * kStateBuffers, kGroup};
}
// the loads warpgroup among itself
__device__ inline NamedBarrier loaders() {
  return {2 + 2 * kMaxFusedStages + 2 * kStateBuffers, kGroup};
}
static_assert(2 + 2 * kMaxFusedStages + 2 * kStateBuffers < 16, "a block has 16 named barriers");

// The first 1024-byte boundary (the swizzle's pattern) of the dynamic shared memory `raw`: where the plan
// starts (the plans' bytes() leave the room for it).
__device__ inline unsigned char* aligned_plan(unsigned char* raw) {
  return raw + (wgmma::kGroupBytes - shared_address(raw) % wgmma::kGroupBytes) % wgmma::kGroupBytes;
}

// A 64-row block of accumulator pairs as bf16 pairs into a 128-byte-swizzled tile by stmatrix: pair(r) gives
// the 32 bits of the thread's registers r, r + 1; the block's row i goes to the tile's row first_row + i, its
// column c to first_column + c. A warp's 16 rows are 8 x 8 blocks (rows 8 h.., columns 8 g..) whose pairs are
// its registers 4 g + 2 h: one stmatrix.x4 takes two column groups' four blocks, where four-byte stores took
// one instruction a pair. A block's eight rows fall on eight different 16-byte slots of the swizzle: no bank
// conflicts.
template <int kHalf, class Pair>
__device__ void stmatrix_accumulator(const Pair& pair, unsigned tile, wgmma::Tile layout, int first_row,
                                     int first_column, int thread) {
  static_assert(kHalf % 8 == 0, "two column groups a stmatrix");
  const int lane = thread % 32, block = lane / 8;
  const int row = first_row + 16 * (thread / 32) + 8 * (block & 1) + lane % 8;
#pragma unroll
  for (int g = 0; g < kHalf / 4; g += 2) {
    const std::uint32_t r[4] = {pair(4 * g), pair(4 * g + 2), pair(4 * g + 4), pair(4 * g + 6)};
    stmatrix<false, 4>(tile + layout.offset(row, first_column + 8 * (g + (block >> 1))), r);
  }
}

// This thread's index in its warpgroup, read from its special register where it is used (volatile: not
// hoisted). The roles' index, computed once before their loops, makes what depends on it alone the same every
// chunk, and ptxas keeps such addresses in registers across the loop: store_outputs' so kept spilled dk's
// pass at K = 128 (kernels/notes/chunk.md, version 114).
__device__ inline int warpgroup_thread_here() {
  int thread;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(thread));
  return thread % kGroup;
}

// The outputs' 64 x Vs accumulators o, times `scale`, as bf16 into the chunk's rows from `out` (`stride`
// elements apart), its first `length` rows (the rest are past the sequence), through `staging`, a 64-row
// token tile of shared memory the warpgroup may overwrite: each warp's 16 rows by stmatrix, then read back
// and stored 16 bytes a thread, a quarter warp whole 64-byte rows (at 32 values two rows four apart:
// different slots of the swizzle). Stored straight from the accumulators, a thread wrote 4 bytes at a time,
// eight rows apart, half of each 32-byte sector an instruction; skipping the stores took 15% off the
// forward at 4,4096,16,64 (version 113's ablation), and with S published by stmatrix too simple_gla's
// forward is 0.885-0.937x of 105's (same-machine A/B of the two landing builds: kernels/notes/chunk.md,
// version 115).
template <int kHalf>
__device__ void store_outputs(const float (&o)[kHalf], unsigned char* staging, __nv_bfloat16* out,
                              std::int64_t stride, int length, float scale) {
  const int thread = warpgroup_thread_here();
  constexpr int kColumns = kHalf * 2, kRowPieces = kColumns / 8;
  static_assert(kRowPieces == 4 || kRowPieces == 8, "32 or 64 values");
  const wgmma::Tile tokens{kFusedChunk};
  stmatrix_accumulator<kHalf>(
      [&](int r) {
        const __nv_bfloat162 x = __floats2bfloat162_rn(scale * o[r], scale * o[r + 1]);
        return *reinterpret_cast<const std::uint32_t*>(&x);
      },
      shared_address(staging), tokens, 0, 0, thread);
  __syncwarp();
  // this thread's first row and column; its next rows kStep apart
  constexpr int kStep = warp_piece_rows(kRowPieces);
  const TilePiece piece = conflict_free_piece<kRowPieces>(thread % 32);
  const int row = 16 * (thread / 32) + piece.row, column = piece.column;
  __nv_bfloat16* to = out + row * stride + column;
#pragma unroll
  for (int i = 0; i < 16 / kStep; ++i) {
    const uint4 x = *reinterpret_cast<const uint4*>(staging + tokens.offset(row + kStep * i, column));
    if (row + kStep * i < length) *reinterpret_cast<uint4*>(to + kStep * i * stride) = x;
  }
}

// store_outputs straight from the accumulators, 4 bytes a thread, eight rows apart (`thread`: its index in
// the warpgroup), for a role whose stage goes back before its stores: no staging tile needed.
template <int kHalf>
__device__ void store_outputs_from_registers(const float (&o)[kHalf], __nv_bfloat16* out, std::int64_t stride,
                                             int length, float scale, int thread) {
#pragma unroll
  for (int r = 0; r < kHalf; r += 2) {
    const wgmma::Element e = wgmma::accumulator_element(thread, r);
    if (e.row < length)
      *reinterpret_cast<__nv_bfloat162*>(out + e.row * stride + e.column) =
          __floats2bfloat162_rn(scale * o[r], scale * o[r + 1]);
  }
}

// Where a thread of a one-kernel forward's block stands: the plan's base in shared memory, its warpgroup's
// role (0 loads, 1 state, 2 and up outputs) and its thread there, the block's head (bh = b H + h) and first
// value column, and the head's initial and final states (`h0` and `ht` of [B H][K][V] fp32 at the block's
// first value column; null where there are none).
struct BlockPlace {
  unsigned char* smem;
  int role, thread, bh, b, h, v0;
  const float* start;
  float* end;
};
__device__ inline BlockPlace block_place(unsigned char* raw, int H, int K, int V, int Vs, const float* h0,
                                         float* ht) {
  BlockPlace at;
  at.smem = aligned_plan(raw);
  // the role from lane 0 by a shuffle: ptxas then knows each role's branch is taken by whole warps and keeps
  // the role's uniform values (the products' descriptors, the stage's addresses) in uniform registers, where
  // from threadIdx it moved each descriptor half in by R2UR (kernels/notes/chunk.md, version 76)
  at.role = __shfl_sync(0xFFFFFFFFu, int(threadIdx.x / kGroup), 0), at.thread = threadIdx.x % kGroup;
  at.bh = blockIdx.x, at.b = at.bh / H, at.h = at.bh % H, at.v0 = blockIdx.y * Vs;
  const std::int64_t head = std::int64_t(at.bh) * K * V + at.v0;
  at.start = h0 ? h0 + head : nullptr;
  at.end = ht ? ht + head : nullptr;
  return at;
}

// The chunks a block takes: `count` from `first` (every chunk, or its sequence segment's: fused_plan.h,
// FusedSegments), in order or (kReverse) from the last.
struct ChunkRun {
  int first, count;
  // ring position j's chunk
  template <bool kReverse>
  __device__ int at(int j) const {
    return first + (kReverse ? count - 1 - j : j);
  }
};

// A forward's sequence segments (fused_plan.h; count 1, every chunk one segment, elsewhere) and where the
// start states of all but the first are (segment_scratch's starts: [B H][count - 1][K][V] fp32).
struct Segments {
  FusedSegments plan;
  const float* starts = nullptr;
};
// `seg` for a launch over `chunks` chunks a head: one segment of them all where it has one.
inline Segments whole_or_split(Segments seg, int chunks) {
  if (seg.plan.count == 1) seg.plan.chunks = chunks;
  return seg;
}
// The block's run: segment blockIdx.z's chunks of a head's `chunks`.
__device__ inline ChunkRun segment_run(const Segments& seg, int chunks) {
  const int first = int(blockIdx.z) * seg.plan.chunks;
  return {first, min(seg.plan.chunks, chunks - first)};
}
// The state the block's segment starts from (the head's initial state, at.start, for the first), from the
// block's first value column of a head's K x V, and where it leaves its final state (at.end, the last
// segment's; null elsewhere).
__device__ inline const float* segment_start(const Segments& seg, const BlockPlace& at, int K, int V) {
  const int z = blockIdx.z;
  return z == 0 ? at.start
                : seg.starts + (std::int64_t(at.bh) * (seg.plan.count - 1) + z - 1) * K * V + at.v0;
}
__device__ inline float* segment_end(const Segments& seg, const BlockPlace& at) {
  return int(blockIdx.z) == seg.plan.count - 1 ? at.end : nullptr;
}

// The loads warpgroup's ring over `chunks` chunks through kStages stages: load(n) issues chunk n's copies as
// one cp.async group and returns what it fetched into registers for the preparation (an empty struct where
// nothing); prepare(n, stage, fetched) makes the landed chunk ready (its own barriers among the loaders
// first: each thread has waited only for its own copies). The loads run kAhead chunks ahead: chunk n is
// handed over as soon as it is ready, then chunk n + kAhead's copies go out as soon as its stage is free
// (chunk n + kAhead - kStages done), so while the readers compute chunk n the next chunks' copies are in
// flight, and a chunk's memory latency is hidden behind as many chunks' products (kernels/notes/chunk.md,
// version 74). kAhead = kStages - 1 waits for the chunk just before n; with two outputs warpgroups, which
// read two chunks at once, kStages - 2 waits for the one before that, so that the next chunk's preparation
// never waits for the slower warpgroup's release (version 98).
struct NothingFetched {};  // a load(n) that keeps nothing in registers

template <int kStages, int kAhead, class Load, class Prepare>
__device__ void run_loads_ring(int chunks, const Load& load, const Prepare& prepare) {
  static_assert(kStages <= kMaxFusedStages && kAhead >= 1 && kAhead < kStages);
  using Fetched = decltype(load(0));
  // slot i holds what was fetched for the chunks i, i + kAhead, i + 2 kAhead, ...: the ring is unrolled by
  // kAhead so that each slot is a register set of its own, written by one load and read by the preparation
  // kAhead chunks later. (Rotating one array moved each fetch a chunk after it was issued, and a move of a
  // register whose global load is in flight waits for it.) Zeros where a chunk is past the end.
  Fetched ahead[kAhead]{};
#pragma unroll
  for (int i = 0; i < kAhead; ++i)
    if (i < chunks)
      ahead[i] = load(i);
    else
      cp_async_commit();  // an empty group: every chunk's wait below counts the same groups after it
  for (int n0 = 0; n0 < chunks; n0 += kAhead) {
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      const int n = n0 + i, s = n % kStages, next = n + kAhead;
      if (n >= chunks) break;
      cp_async_wait<kAhead - 1>();  // chunk n's group (the kAhead - 1 after it may be in flight)
      prepare(n, s, ahead[i]);
      wgmma::fence_shared_for_async();  // the copies and the stores, for the products
      stage_full(s).arrive();
      if (next < chunks) {
        if (next >= kStages) stage_empty(next % kStages).sync();
        ahead[i] = load(next);
      } else {
        cp_async_commit();
      }
    }
  }
}

// S from an fp32 [K][V] matrix (row stride V) at `from`, its first value column; zeros where from is null.
template <int kBlocks, int kHalf>
__device__ void load_state(float (&S)[kBlocks][kHalf], const float* from, int V, int thread) {
#pragma unroll
  for (int m = 0; m < kBlocks; ++m)
#pragma unroll
    for (int r = 0; r < kHalf; ++r) {
      const wgmma::Element e = wgmma::accumulator_element(thread, r);
      S[m][r] = from ? from[std::int64_t(wgmma::kRows * m + e.row) * V + e.column] : 0.0f;
    }
}

// S from the head's state stored transposed, an fp32 [V][K] matrix at `from` (the head's first element; null:
// zeros), where a pass's state is the transpose of the one a caller holds: S's row k, column c (of the
// block's, from value column v0) is from[(v0 + c) K + k].
template <int kBlocks, int kHalf>
__device__ void load_state_transposed(float (&S)[kBlocks][kHalf], const float* from, int K, int v0,
                                      int thread) {
#pragma unroll
  for (int m = 0; m < kBlocks; ++m)
#pragma unroll
    for (int r = 0; r < kHalf; ++r) {
      const wgmma::Element e = wgmma::accumulator_element(thread, r);
      S[m][r] = from ? from[std::int64_t(v0 + e.column) * K + wgmma::kRows * m + e.row] : 0.0f;
    }
}

// S into an fp32 [K][V] matrix at `to`, its first value column.
template <int kBlocks, int kHalf>
__device__ void store_state(const float (&S)[kBlocks][kHalf], float* to, int V, int thread) {
#pragma unroll
  for (int m = 0; m < kBlocks; ++m)
#pragma unroll
    for (int r = 0; r < kHalf; r += 2) {
      const wgmma::Element e = wgmma::accumulator_element(thread, r);
      *reinterpret_cast<float2*>(to + std::int64_t(wgmma::kRows * m + e.row) * V + e.column) =
          make_float2(S[m][r], S[m][r + 1]);
    }
}

// acc = q S over K keys for kN values, S held in two bf16 parts (the B operands): queries(step) and
// part(p, step) give each depth step's descriptors (q's, and part p's of S: 0 the high, 1 the low). The
// outputs' product with a state the state warpgroup published (publish_state).
template <int K, int kN, class Queries, class Parts>
__device__ void product_with_state_parts(float (&acc)[kN / 2], const Queries& queries, const Parts& part) {
#pragma unroll
  for (int step = 0; step < K / wgmma::kDepth; ++step) {
    const std::uint64_t q = queries(step);
    wgmma::product<kN, 0, 1>(acc, q, part(0, step), step > 0);
    wgmma::product<kN, 0, 1>(acc, q, part(1, step), true);
  }
}

// S in two bf16 parts into the swizzled tiles at `high` and `low` (rows keys: the MN-major B of q S), its
// columns from `first_column` on (the low part's `low_shift` columns further: both in one tile), by stmatrix.
template <int K, int kBlocks, int kHalf>
__device__ void publish_state(const float (&S)[kBlocks][kHalf], unsigned char* high, unsigned char* low,
                              int first_column, int thread, int low_shift = 0) {
#pragma unroll
  for (int m = 0; m < kBlocks; ++m) {
    std::uint32_t h[kHalf / 2], l[kHalf / 2];
#pragma unroll
    for (int r = 0; r < kHalf; r += 2) {
      const Parts<__nv_bfloat16> parts = split<__nv_bfloat16>(S[m][r], S[m][r + 1]);
      h[r / 2] = parts.high, l[r / 2] = parts.low;
    }
    stmatrix_accumulator<kHalf>([&](int r) { return h[r / 2]; }, shared_address(high), wgmma::Tile{K},
                                wgmma::kRows * m, first_column, thread);
    stmatrix_accumulator<kHalf>([&](int r) { return l[r / 2]; }, shared_address(low), wgmma::Tile{K},
                                wgmma::kRows * m, first_column + low_shift, thread);
  }
}

// The state warpgroup's hand-over of S before chunk `n` to the outputs, through kBuffers buffers taken in
// turn (chunk n's is n % kBuffers, from column `first_column` of the parts' tiles `high` and `low`, which
// the caller's layout places): once that buffer's previous chunk has been read, S in two bf16 parts into it,
// made visible to the products, and the buffer full. Needs none of the chunk's inputs, so it goes out first
// in the state's step.
template <int K, int kBuffers = 1, int kBlocks, int kHalf>
__device__ void hand_over_state(const float (&S)[kBlocks][kHalf], unsigned char* high, unsigned char* low,
                                int first_column, int n, int thread) {
  static_assert(kBuffers >= 1 && kBuffers <= kStateBuffers);
  if (n >= kBuffers) state_empty(n % kBuffers).sync();
  publish_state<K>(S, high, low, first_column, thread);
  wgmma::fence_shared_for_async();
  state_full(n % kBuffers).arrive();
}

}  // namespace flabench::chunk::roles
