// gla's and rwkv6's chunk forward in one kernel on Hopper (sm_90a): a block scans one head's chunks for a
// slice of Vs values, its fp32 state in a warpgroup's registers. Where the two-kernel forward (scan.cuh,
// forward.cuh) writes every chunk's fp32 state to memory and reads it back, and stages the decays' factors
// twice, this one reads q, k, v and g once and writes o once. Forward only: a backward reads what the
// two-kernel forward saves (its states, scores and prepared keys), so a forward that saves for one takes that
// path. Three warpgroups, a chunk of 64 tokens at a time, kFusedStages chunks staged (fused_plan.h):
//   loads    cp.async of the next chunks' q, k, g and v; the chunk's log decays summed within its 16-token
//            sub-chunks (a thread a sub-chunk and two channels, in registers); q e^{seen within its
//            sub-chunk} and k e^{after it to its sub-chunk's end} in two bf16 parts each, over the raw rows;
//            the tables of per-channel factors the other roles take (PerKeyTables); rwkv6's bonus;
//   state    publishes S (the state before the chunk) in two bf16 parts, then S = diag(e^{whole}) S +
//            (k e^{to the chunk's end})^T v, the keys' factor applied to their fragments on the way to the
//            products (A from registers): the only chain that runs chunk after chunk;
//   outputs  a warp a sub-chunk I of rows: the intra-chunk scores on mma.sync, as intra_chunk.cuh makes them
//            (q e^{seen} times the sub-chunks between against k e^{to its sub-chunk's end} below the
//            diagonal, the gentle channels through e^{-total} on it, the steep ones element by element);
//            then o = scale ((q e^{seen from the chunk's start}) S + P v) on wgmma, q's factor applied to its
//            fragments and P's two bf16 parts fed from registers.
// It runs at K = 64 where its blocks fill more than half the GPU (fused_plan.h, fused_blocks_fill): at K =
// 128 a block of 32 values (64 spilled) makes its queries' and keys' factors and its intra-chunk scores again
// for each of four value slices and measured slower than the two-kernel forward (kernels/notes/chunk.md, 72).
// The precision is the two-kernel forward's for bf16: q e^{seen from the start} rounded once against S's two
// parts, P in two parts against v, the state update's keys in two parts, the off-diagonal scores' operands
// rounded once and the diagonal's in two parts each. No exponent is positive but e^{-total} of a gentle
// channel (<= e^40), and none is the difference of two sums over the whole chunk.
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/fused_roles.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/per_key_fused_forward.h"
#include "kernels/common/chunk/per_key_fused_layout.h"
#include "kernels/common/chunk/swizzled_fragments.h"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/cuda_check.h"
#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/common/shared_address.cuh"
#include "kernels/common/wgmma/wgmma.cuh"

namespace flabench {
namespace chunk {
namespace {

using bf16 = __nv_bfloat16;
using namespace roles;  // the barriers between the roles, kGroup
using wgmma::Tile;

constexpr int C = kFusedChunk, kSubs = kFusedSubs;
// Byte offset of (token, channel) in a token tile.
__device__ inline unsigned token_offset(int t, int c) {
  return Tile{C}.offset(t, c);
}

// The kernel's form: rwkv6's output reads the state before its token (seen is exclusive) and adds the bonus.
template <bool kExclusive, bool kBonus>
struct PerKeyForm {
  static constexpr bool exclusive = kExclusive, bonus = kBonus;
};

// The chunk's tables in shared memory (PerKeyTables), row `row` + index, channel c.
struct Tables {
  float* floats;
  int K;
  __device__ float* row(int row, int index = 0) const { return floats + (row + index) * K; }
  __device__ int* steep_counts() const { return reinterpret_cast<int*>(floats + PerKeyTables::rows * K); }
  __device__ int& steep_count(int I, int part) const {
    return steep_counts()[I * PerKeyTables::kListParts + part];
  }
  __device__ int* steep(int I, int part) const {
    return steep_counts() + kSubs * PerKeyTables::kListParts + I * K + PerKeyTables::kListStride * part;
  }
  __device__ bool any_steep(int I) const { return steep_count(I, 0) + steep_count(I, 1) > 0; }
  __device__ static Tables at(unsigned char* smem, const PerKeyFusedLayout& L, int stage) {
    return {reinterpret_cast<float*>(smem + L.tables(stage)), L.K};
  }
};

__device__ inline float2 bf16_pair(const unsigned char* at) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(at));
}
// A fragment register's two values from its two parts, times two factors, rounded once.
__device__ inline std::uint32_t scaled_once(std::uint32_t high, std::uint32_t low, float2 factor) {
  const float2 h = unpacked(high), l = unpacked(low);
  return pack<bf16>((h.x + l.x) * factor.x, (h.y + l.y) * factor.y);
}
// ... or kept in two parts.
__device__ inline Parts<bf16> scaled_parts(std::uint32_t high, std::uint32_t low, float2 factor) {
  const float2 h = unpacked(high), l = unpacked(low);
  return split<bf16>((h.x + l.x) * factor.x, (h.y + l.y) * factor.y);
}
__device__ inline float2 pair_at(const float* row, int c) {
  return *reinterpret_cast<const float2*>(row + c);
}

// ldmatrix x4 of a fragment (swizzled_fragments.h) from the token tile at `tile`.
template <Fragment kind>
__device__ void load_fragment(std::uint32_t (&r)[4], const unsigned char* tile, int first, int step) {
  const PieceStart piece = fragment_piece<kind>(threadIdx.x % 32, first, step);
  ldmatrix<kind == Fragment::a_transposed, 4>(r, tile + token_offset(piece.token, piece.channel));
}

// ---------------------------------------------------------------------------------------------------------
// The loads' warpgroup.

// Chunk n's q, k, g (into q's low part, k's low part, q's high part) and v by cp.async, rows past the
// sequence as zeros; one group.
template <int K, int kVs>
__device__ void load_chunk(const Pointers<bf16>& p, const Dims& d, const PerKeyFusedLayout& L, unsigned base,
                           int b, int h, int v0, int n, int thread) {
  const int s = n % kFusedStages, t0 = n * C, length = min(C, d.T - t0);
  const std::int64_t first = d.row(b, h, t0);
  const bf16 *q_rows = p.q + first * K, *k_rows = p.k + first * K, *g_rows = p.g + first * K,
             *v_rows = p.v + first * d.V + v0;
  for (int idx = thread; idx < C * K / 8; idx += kGroup) {
    const int t = idx / (K / 8), c = idx % (K / 8) * 8;
    const bool in = t < length;
    const std::int64_t at = (in ? std::int64_t(t) * d.H * K : 0) + c;
    const unsigned offset = token_offset(t, c);
    cp_async16_or_zeros_to(base + L.queries(s, 1) + offset, q_rows + at, in);
    cp_async16_or_zeros_to(base + L.keys(s, 1) + offset, k_rows + at, in);
    cp_async16_or_zeros_to(base + L.queries(s, 0) + offset, g_rows + at, in);
  }
  for (int idx = thread; idx < C * kVs / 8; idx += kGroup) {
    const int t = idx / (kVs / 8), c = idx % (kVs / 8) * 8;
    const bool in = t < length;
    cp_async16_or_zeros_to(base + L.values(s) + token_offset(t, c),
                           v_rows + (in ? std::int64_t(t) * d.H * d.V : 0) + c, in);
  }
  cp_async_commit();
}

// A thread's share of a chunk's decays: sub-chunk I of item x, channels c, c + 1 (kItems items a thread).
template <int K>
struct Items {
  static constexpr int kCount = kSubs * K / 2 / kGroup;  // 2 at K = 128, 1 at K = 64
  static_assert(kCount >= 1 && kSubs * K / 2 % kGroup == 0, "a whole number of items a thread");
  __device__ static int sub_chunk(int thread, int x) { return (thread + kGroup * x) / (K / 2); }
  __device__ static int channel(int thread, int x) { return 2 * ((thread + kGroup * x) % (K / 2)); }
};

// The chunk in its stage: every loader's copies have landed (the caller waited and synchronised). The log
// decays are read out of q's high part first (a barrier), then summed in registers while q's and k's parts
// are written over them and the raw rows; then the tables from the sub-chunks' sums (a barrier).
template <int K, class Form>
__device__ void prepare_chunk(unsigned char* smem, const PerKeyFusedLayout& L, int s, const float2 (&u)[2],
                              int thread) {
  using It = Items<K>;
  const Tables tab = Tables::at(smem, L, s);
  unsigned char *q_high = smem + L.queries(s, 0), *q_low = smem + L.queries(s, 1),
                *k_high = smem + L.keys(s, 0), *k_low = smem + L.keys(s, 1);
  float2 local[It::kCount][kSubChunk];
#pragma unroll
  for (int x = 0; x < It::kCount; ++x) {
    const int I = It::sub_chunk(thread, x), c = It::channel(thread, x);
#pragma unroll
    for (int i = 0; i < kSubChunk; ++i) local[x][i] = bf16_pair(q_high + token_offset(I * kSubChunk + i, c));
  }
  if (thread < kSubs * PerKeyTables::kListParts) tab.steep_counts()[thread] = 0;
  if (Form::bonus && thread < C) tab.row(PerKeyTables::bonus)[thread] = 0;
  loaders().sync();  // the log decays read; the counts zero

  const int lane = thread % 32;
#pragma unroll
  for (int x = 0; x < It::kCount; ++x) {
    const int I = It::sub_chunk(thread, x), c = It::channel(thread, x);
#pragma unroll
    for (int i = 1; i < kSubChunk; ++i)
      local[x][i] = make_float2(local[x][i - 1].x + local[x][i].x, local[x][i - 1].y + local[x][i].y);
    const float2 total = local[x][kSubChunk - 1];
#pragma unroll
    for (int i = 0; i < kSubChunk; ++i) {
      const unsigned at = token_offset(I * kSubChunk + i, c);
      const float2 k = bf16_pair(k_low + at);
      const Parts<bf16> kp =
          split<bf16>(k.x * exp_flushed(total.x - local[x][i].x), k.y * exp_flushed(total.y - local[x][i].y));
      *reinterpret_cast<std::uint32_t*>(k_high + at) = kp.high;
      *reinterpret_cast<std::uint32_t*>(k_low + at) = kp.low;
      const float2 seen = !Form::exclusive ? local[x][i] : i ? local[x][i - 1] : make_float2(0.0f, 0.0f);
      const float2 q = bf16_pair(q_low + at);
      const Parts<bf16> qp = split<bf16>(q.x * exp_flushed(seen.x), q.y * exp_flushed(seen.y));
      *reinterpret_cast<std::uint32_t*>(q_high + at) = qp.high;
      *reinterpret_cast<std::uint32_t*>(q_low + at) = qp.low;
      if constexpr (Form::bonus) {  // q_i . (u o k_i) over the warp's 64 channels, then the sub-chunk's
        float w = q.x * u[x].x * k.x + q.y * u[x].y * k.y;
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) w += __shfl_xor_sync(0xffffffffu, w, offset);
        if (lane == 0) atomicAdd(tab.row(PerKeyTables::bonus) + I * kSubChunk + i, w);
      }
    }
    tab.row(PerKeyTables::total, I)[c] = total.x;
    tab.row(PerKeyTables::total, I)[c + 1] = total.y;
    // the steep channels into the warp's list (a warp's 64 channels are all of one sub-chunk), in lane order
    const int part = c / PerKeyTables::kListStride;
    const bool steep0 = -total.x > kFactorLimit, steep1 = -total.y > kFactorLimit;
    const unsigned first = __ballot_sync(0xffffffffu, steep0), second = __ballot_sync(0xffffffffu, steep1);
    const unsigned below = (1u << lane) - 1;
    int slot = __popc(first & below) + __popc(second & below);
    if (steep0) tab.steep(I, part)[slot++] = c;
    if (steep1) tab.steep(I, part)[slot] = c + 1;
    if (lane == 0) tab.steep_count(I, part) = __popc(first) + __popc(second);
  }
  loaders().sync();  // the sub-chunks' sums

  for (int c = thread; c < K; c += kGroup) {
    float total[kSubs];
#pragma unroll
    for (int I = 0; I < kSubs; ++I) total[I] = tab.row(PerKeyTables::total, I)[c];
    float before = 0.0f, after = 0.0f;
#pragma unroll
    for (int I = 0; I < kSubs; ++I) {
      tab.row(PerKeyTables::prefix_factor, I)[c] = exp_flushed(before);
      before += total[I];
      tab.row(PerKeyTables::after_factor, kSubs - 1 - I)[c] = exp_flushed(after);
      after += total[kSubs - 1 - I];
      tab.row(PerKeyTables::diagonal_factor, I)[c] =
          -total[I] <= kFactorLimit ? exp_flushed(-total[I]) : 0.0f;
    }
    tab.row(PerKeyTables::whole_factor)[c] = exp_flushed(before);
#pragma unroll
    for (int I = 2; I < kSubs; ++I)
#pragma unroll
      for (int J = 0; J < I - 1; ++J) {
        float between = 0.0f;
#pragma unroll
        for (int M = J + 1; M < I; ++M) between += total[M];
        tab.row(PerKeyTables::far_factor, far_pair_index(I, J))[c] = exp_flushed(between);
      }
  }
  // Not needed for the order (the ring's stage_full arrival releases these stores to the readers: PTX's
  // bar.arrive synchronizes with their barrier.sync), but compute-sanitizer's racecheck orders a warp's
  // stores before other warpgroups' reads only across a barrier the writing warp waits at: without this one
  // it reported these stores against the state's and outputs' reads, with it none (stop 99; speed the same).
  loaders().sync();
}

template <int K, int kVs, class Form>
__device__ void loads_role(const Pointers<bf16>& p, const Dims& d, const PerKeyFusedLayout& L,
                           unsigned char* smem, int b, int h, int v0, int thread) {
  const unsigned base = shared_address(smem);
  float2 u[2] = {};  // rwkv6's bonus weights of the thread's channels, items 0 and 1
  if constexpr (Form::bonus)
#pragma unroll
    for (int x = 0; x < Items<K>::kCount; ++x) {
      const int c = Items<K>::channel(thread, x);
      u[x] = make_float2(to_float(p.u[h * K + c]), to_float(p.u[h * K + c + 1]));
    }
  roles::run_loads_ring(
      d.chunks(),
      [&](int n) {
        load_chunk<K, kVs>(p, d, L, base, b, h, v0, n, thread);
        return roles::NothingFetched{};
      },
      [&](int, int s, roles::NothingFetched) {
        loaders().sync();  // every loader's copies
        prepare_chunk<K, Form>(smem, L, s, u, thread);
      });
}

// ---------------------------------------------------------------------------------------------------------
// The state's warpgroup.

// From the head's state `start` to its final state `end` (null: zeros, not kept).
template <int K, int kVs>
__device__ void state_role(const Dims& d, const PerKeyFusedLayout& L, unsigned char* smem, const float* start,
                           float* end, int thread) {
  constexpr int kBlocks = K / wgmma::kRows, kSteps = C / wgmma::kDepth;
  const PerKeyOperands at{L, shared_address(smem)};
  const int chunks = d.chunks(), warp = thread / 32, lane = thread % 32;
  float S[kBlocks][kVs / 2];
  roles::load_state(S, start, d.V, thread);
  for (int n = 0; n < chunks; ++n) {
    const int s = n % kFusedStages;
    roles::hand_over_state<K>(S, smem + L.state(0), smem + L.state(1), n, thread);
    stage_full(s).sync_unaligned();
    const Tables tab = Tables::at(smem, L, s);
    // the keys' A fragments: k e^{to its sub-chunk's end} times e^{the sub-chunks after}, in two parts; a
    // depth step is a sub-chunk, and a thread's rows are two keys. A 64-key block at a time (both at once
    // held 64 registers of fragments and spilled at K = 128).
#pragma unroll
    for (int m = 0; m < kBlocks; ++m) {
      const int first = wgmma::kRows * m + 16 * warp;  // the warp's 16 keys
      // a thread's keys: its accumulator rows, and its fragments' register_row (j even, odd)
      const int key[2] = {register_row(lane, first, 0), register_row(lane, first, 1)};
      const float whole[2] = {tab.row(PerKeyTables::whole_factor)[key[0]],
                              tab.row(PerKeyTables::whole_factor)[key[1]]};
      std::uint32_t high[kSteps][4], low[kSteps][4];
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        std::uint32_t h[4], l[4];
        load_fragment<Fragment::a_transposed>(h, smem + L.keys(s, 0), first, step);
        load_fragment<Fragment::a_transposed>(l, smem + L.keys(s, 1), first, step);
        const float* after = tab.row(PerKeyTables::after_factor, step);
        const float f[2] = {after[key[0]], after[key[1]]};
#pragma unroll
        for (int j = 0; j < 4; ++j) {  // register j: key[j & 1], two tokens
          const Parts<bf16> parts = scaled_parts(h[j], l[j], make_float2(f[j & 1], f[j & 1]));
          high[step][j] = parts.high, low[step][j] = parts.low;
        }
      }
#pragma unroll
      for (int r = 0; r < kVs / 2; ++r) S[m][r] *= whole[(r >> 1) & 1];
      wgmma::hold(S[m]);
      wgmma::fence();
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        wgmma::product<kVs, 1>(S[m], high[step], at.values(s, step), true);
        wgmma::product<kVs, 1>(S[m], low[step], at.values(s, step), true);
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::hold(S[m]);
    }
    if (n + kFusedStages < chunks) stage_empty(s).arrive();
  }
  if (end) roles::store_state(S, end, d.V, thread);
}

// ---------------------------------------------------------------------------------------------------------
// The outputs' warpgroup: warp I holds the rows of sub-chunk I.

// Sub-chunk I's diagonal block over its steep channels, element by element in fp32 (intra_chunk.cuh's form),
// added to the warp's two accumulator tiles of it. The raw rows and log decays come from global memory (L2:
// the loads read them moments ago), the channel's decays summed again across the sub-chunk's lanes.
template <class Form>
__device__ void add_steep_channels(float (&left)[4], float (&right)[4], const Pointers<bf16>& p,
                                   const Dims& d, const Tables& tab, int b, int h, int t0, int I) {
  const int lane = threadIdx.x % 32, group = lane / 4, pair = lane % 4, token = lane % kSubChunk;
  const int t = t0 + I * kSubChunk + token;
  const bool in = t < d.T;
  const std::int64_t row = d.row(b, h, in ? t : 0) * d.K;
  for (int part = 0; part < PerKeyTables::kListParts; ++part)
    for (int e = 0; e < tab.steep_count(I, part); ++e) {
      const int c = tab.steep(I, part)[e];
      float local = in ? to_float(p.g[row + c]) : 0.0f;
      const float q = in ? to_float(p.q[row + c]) : 0.0f, k = in ? to_float(p.k[row + c]) : 0.0f;
#pragma unroll
      for (int offset = 1; offset < kSubChunk; offset *= 2) {
        const float before = __shfl_up_sync(0xffffffffu, local, offset, kSubChunk);
        if (token >= offset) local += before;
      }
      const float previous = __shfl_up_sync(0xffffffffu, local, 1, kSubChunk);
      const float seen_here = Form::exclusive ? (token ? previous : 0.0f) : local;
#pragma unroll
      for (int half = 0; half < 2; ++half) {  // rows group, group + 8
        const int i = group + 8 * half;
        const float qi = __shfl_sync(0xffffffffu, q, i, kSubChunk),
                    seen = __shfl_sync(0xffffffffu, seen_here, i, kSubChunk);
#pragma unroll
        for (int x = 0; x < 2; ++x)
#pragma unroll
          for (int odd = 0; odd < 2; ++odd) {
            const int j = 8 * x + 2 * pair + odd;
            const float kj = __shfl_sync(0xffffffffu, k, j, kSubChunk),
                        lj = __shfl_sync(0xffffffffu, local, j, kSubChunk);
            (x ? right : left)[2 * half + odd] += qi * kj * exp_flushed(fminf(seen - lj, 0.0f));
          }
      }
    }
}

template <int K, int kVs, class Form>
__device__ void outputs_role(const Pointers<bf16>& p, const Dims& d, const PerKeyFusedLayout& L,
                             unsigned char* smem, int b, int h, int v0, int thread) {
  constexpr int kSteps = K / wgmma::kDepth;  // the channels' 16-wide steps
  const PerKeyOperands at{L, shared_address(smem)};
  const int chunks = d.chunks(), I = thread / 32, lane = thread % 32, group = lane / 4, pair = lane % 4;
  for (int n = 0; n < chunks; ++n) {
    const int s = n % kFusedStages, t0 = n * C, length = min(C, d.T - t0);
    stage_full(s).sync_unaligned();
    const Tables tab = Tables::at(smem, L, s);
    // P: the scores of the warp's 16 rows against the chunk's 64 tokens, as eight 16 x 8 tiles
    float P[2 * kSubs][4] = {};
    std::uint32_t inter[kSteps][4];  // q e^{seen from the chunk's start}: the A of q S
    const float* prefix = tab.row(PerKeyTables::prefix_factor, I);
    const float* diagonal = tab.row(PerKeyTables::diagonal_factor, I);
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      std::uint32_t qh[4], ql[4];
      load_fragment<Fragment::a_rows>(qh, smem + L.queries(s, 0), kSubChunk * I, step);
      load_fragment<Fragment::a_rows>(ql, smem + L.queries(s, 1), kSubChunk * I, step);
      const auto channel = [&](int j) { return register_channel<Fragment::a_rows>(lane, step, j); };
#pragma unroll
      for (int j = 0; j < 4; ++j) inter[step][j] = scaled_once(qh[j], ql[j], pair_at(prefix, channel(j)));
#pragma unroll
      for (int J = 0; J < kSubs; ++J) {
        if (J < I) {  // below the diagonal: (q e^{seen} e^{between}) . (k e^{to J's end}), each rounded once
          std::uint32_t kb[4], a[4];
          load_fragment<Fragment::b_rows>(kb, smem + L.keys(s, 0), kSubChunk * J, step);
          if (J == I - 1) {
#pragma unroll
            for (int j = 0; j < 4; ++j) a[j] = qh[j];
          } else {
            const float* between = tab.row(PerKeyTables::far_factor, far_pair_index(I, J));
#pragma unroll
            for (int j = 0; j < 4; ++j) a[j] = scaled_once(qh[j], ql[j], pair_at(between, channel(j)));
          }
          mma_16x8x16<bf16>(P[2 * J], a, {kb[0], kb[1]});
          mma_16x8x16<bf16>(P[2 * J + 1], a, {kb[2], kb[3]});
        } else if (J == I) {  // on it: q e^{seen} . k e^{-local} over the gentle channels, both in two parts
          std::uint32_t kh[4], kl[4], bh[4], bl[4];
          load_fragment<Fragment::b_rows>(kh, smem + L.keys(s, 0), kSubChunk * J, step);
          load_fragment<Fragment::b_rows>(kl, smem + L.keys(s, 1), kSubChunk * J, step);
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const Parts<bf16> parts = scaled_parts(
                kh[j], kl[j], pair_at(diagonal, register_channel<Fragment::b_rows>(lane, step, j)));
            bh[j] = parts.high, bl[j] = parts.low;
          }
#pragma unroll
          for (int x = 0; x < 2; ++x) {
            const std::uint32_t b_high[2] = {bh[2 * x], bh[2 * x + 1]}, b_low[2] = {bl[2 * x], bl[2 * x + 1]};
            mma_16x8x16<bf16>(P[2 * J + x], qh, b_high);
            mma_16x8x16<bf16>(P[2 * J + x], ql, b_high);
            mma_16x8x16<bf16>(P[2 * J + x], qh, b_low);
          }
        }
      }
    }
    // the diagonal block: its steep channels, then what row i does not read masked out (and rwkv6's bonus
    // on i's own token)
#pragma unroll
    for (int J = 0; J < kSubs; ++J)
      if (J == I) {
        if (tab.any_steep(I)) add_steep_channels<Form>(P[2 * J], P[2 * J + 1], p, d, tab, b, h, t0, I);
#pragma unroll
        for (int x = 0; x < 2; ++x)
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const int i = group + 8 * (r >> 1), j = 8 * x + 2 * pair + (r & 1);
            const bool reads = Form::exclusive ? j < i : j <= i;
            float& score = P[2 * J + x][r];
            score = reads ? score : 0.0f;
            if constexpr (Form::bonus)
              if (j == i) score = tab.row(PerKeyTables::bonus)[kSubChunk * I + i];
          }
      }
    // P's two parts, as the A fragments of P v (depth step J: tiles 2 J and 2 J + 1)
    std::uint32_t high[kSubs][4], low[kSubs][4];
#pragma unroll
    for (int J = 0; J < kSubs; ++J)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float* tile = P[2 * J + (j >> 1)];
        const Parts<bf16> parts = split<bf16>(tile[2 * (j & 1)], tile[2 * (j & 1) + 1]);
        high[J][j] = parts.high, low[J][j] = parts.low;
      }

    state_full().sync();
    float o[kVs / 2];
    wgmma::fence();
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      wgmma::product<kVs, 1>(o, inter[step], at.state(0, step), step > 0);
      wgmma::product<kVs, 1>(o, inter[step], at.state(1, step), true);
    }
#pragma unroll
    for (int J = 0; J < kSubs; ++J) {
      wgmma::product<kVs, 1>(o, high[J], at.values(s, J), true);
      wgmma::product<kVs, 1>(o, low[J], at.values(s, J), true);
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::hold(o);
    if (n + 1 < chunks) state_empty().arrive();
    if (n + kFusedStages < chunks) stage_empty(s).arrive();

    store_outputs(o, p.o + d.row(b, h, t0) * d.V + v0, std::int64_t(d.H) * d.V, length, d.scale, thread);
  }
}

// grid (B H, V / Vs), kFusedThreads threads, L.bytes() of shared memory.
template <int K, int kVs, class Form>
__global__ void __launch_bounds__(kFusedThreads, 1)
    per_key_fused_forward_kernel(Pointers<bf16> p, Dims d, PerKeyFusedLayout L) {
  extern __shared__ unsigned char raw[];
  const BlockPlace at = block_place(raw, d.H, K, d.V, kVs, p.h0, p.ht);
  if (at.role == 0)
    loads_role<K, kVs, Form>(p, d, L, at.smem, at.b, at.h, at.v0, at.thread);
  else if (at.role == 1)
    state_role<K, kVs>(d, L, at.smem, at.start, at.end, at.thread);
  else
    outputs_role<K, kVs, Form>(p, d, L, at.smem, at.b, at.h, at.v0, at.thread);
}

template <int kVs, class Form>
void launch_per_key_fused(const Pointers<bf16>& p, const Dims& d, cudaStream_t stream) {
  const PerKeyFusedLayout L{kFusedKeys, kVs};
  const auto kernel = per_key_fused_forward_kernel<kFusedKeys, kVs, Form>;
  allow_shared_memory(kernel, L.bytes());
  kernel<<<dim3(unsigned(d.B * d.H), unsigned(d.V / kVs)), kFusedThreads, L.bytes(), stream>>>(p, d, L);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class Form>
void launch_for_slice(const Pointers<bf16>& p, const Dims& d, int Vs, cudaStream_t stream) {
  Vs == 32 ? launch_per_key_fused<32, Form>(p, d, stream) : launch_per_key_fused<64, Form>(p, d, stream);
}

}  // namespace
}  // namespace chunk

bool per_key_fused_forward_runs(const RecurrenceForm& form, const Problem& p, const DeviceLimits& limits) {
  if (!wgmma::built_for_sm90a() || limits.compute_capability != 90) return false;
  // gla's form, or rwkv6's (the output before the update, with the bonus)
  if (form.gate != GateKind::per_key || form.output_before_update != form.bonus) return false;
  if (p.dtype != DType::bf16 || p.chunk_size != chunk::kFusedChunk || p.K != chunk::kFusedKeys ||
      p.V % 32 != 0)
    return false;
  return chunk::fused_blocks_fit<chunk::PerKeyFusedLayout>(p, limits);
}

void per_key_fused_forward(const RecurrenceBinding& binding, const ForwardCall& call,
                           const DeviceLimits& limits) {
  const chunk::Dims d = chunk::make_dims(call.problem);
  Pointers<__nv_bfloat16> p = bind_inputs<__nv_bfloat16>(binding, call.inputs);
  p.o = call.outputs.at(binding.o).as<__nv_bfloat16>();
  p.ht = call.outputs.at(binding.ht).as<float>();
  const int Vs = chunk::fused_value_slice(d.B * d.H, d.V, limits.multiprocessors);
  if (binding.form.output_before_update)
    chunk::launch_for_slice<chunk::PerKeyForm<true, true>>(p, d, Vs, call.stream);
  else
    chunk::launch_for_slice<chunk::PerKeyForm<false, false>>(p, d, Vs, call.stream);
}

}  // namespace flabench
