// gla's and rwkv6's state and output pass in one kernel on Hopper (sm_90a), from operands prepared by a
// wide pass before it: a block scans one head's chunks for a slice of Vs values, its fp32 state in a
// warpgroup's registers, every product on wgmma. What depends on the per-key decays and not on the value
// slice (the prepared queries and keys, the chunk's decay, the intra-chunk scores A) is made once a chunk by
// the operands pass (operands_pass.cuh), a block a chunk; version 72's one kernel (gla's and rwkv6's forward
// alone at K = 64 until version 94) made it again in each of a head's value slices and was bound by those
// instructions at K = 128 (kernels/notes/chunk.md, versions 72, 87-90 and 94). Three warpgroups, a chunk of
// 64 tokens at a time, kFusedStages chunks staged (fused_plan.h):
//   loads    cp.async of the next chunks' prepared queries (scale q e^{seen from the chunk's start}, their
//            rounded part), prepared keys (k e^{after it to the chunk's end}, two bf16 parts), v and the
//            chunk's summed log decay per key;
//   state    publishes S (the state before the chunk) in two bf16 parts (and saves it in fp32 where a
//            backward reads it), then S = diag(e^{whole}) S + (k e^{to end})^T v: the only chain that runs
//            chunk after chunk;
//   outputs  o = (scale q e^{seen}) S + scale A v (rwkv6: A's diagonal the bonus q_i . (u o k_i)), A read
//            into registers in fp32 a chunk ahead and fed to the tensor cores from there in two bf16 parts;
//            the state's buffer released once q S is done, before A v.
// The precision is the multi-kernel forward's for bf16 (forward.cuh, scan.cuh): the queries rounded once
// against S's two parts, A in two parts against v, the update's keys in two parts against v.
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/fused_roles.cuh"
#include "kernels/common/chunk/prepared_fused_forward.h"
#include "kernels/common/chunk/prepared_fused_layout.h"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/cuda_check.h"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/common/shared_address.cuh"
#include "kernels/common/wgmma/wgmma.cuh"

namespace flabench {
namespace chunk {
namespace {

using bf16 = __nv_bfloat16;
using namespace roles;  // the barriers between the roles, kGroup
using wgmma::accumulator_element;
using wgmma::Tile;

constexpr int C = kFusedChunk;

// What the pass reads and writes, by chunk (bh n + chunk index): the prepared tiles [chunk][C][K], the keys'
// low part `plane` elements after their high part, whole [chunk][K], scores [chunk][C][C], bonus [chunk][C]
// (null for gla); v, h0, o and ht as the inputs and outputs are; saved [B H][chunks][K][V] or null.
struct PreparedPointers {
  const bf16 *queries, *keys;
  std::int64_t plane;
  const float *whole, *scores, *bonus;
  const bf16* v;
  const float* h0;
  bf16* o;
  float* ht;
  float* saved;
};

// The loads' warpgroup: chunk n's prepared tiles, v (rows past the sequence as zeros) and decays by cp.async
// into stage s, one group.
template <int K, int kVs>
__device__ void load_chunk(const PreparedPointers& p, const Dims& d, const PreparedFusedLayout& L,
                           unsigned base, int bh, int b, int h, int v0, int n, int s, int thread) {
  const int t0 = n * C, length = min(C, d.T - t0);
  const Tile tokens{C};
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  const bf16 *queries = p.queries + chunk * C * K, *keys = p.keys + chunk * C * K;
  for (int idx = thread; idx < C * K / 8; idx += kGroup) {
    const int t = idx / (K / 8), c = idx % (K / 8) * 8;
    const unsigned at = tokens.offset(t, c);
    cp_async16_or_zeros_to(base + L.queries(s) + at, queries + 8 * idx, true);
    cp_async16_or_zeros_to(base + L.keys(s, 0) + at, keys + 8 * idx, true);
    cp_async16_or_zeros_to(base + L.keys(s, 1) + at, keys + p.plane + 8 * idx, true);
  }
  const bf16* v_rows = p.v + d.row(b, h, t0) * d.V + v0;
  for (int idx = thread; idx < C * kVs / 8; idx += kGroup) {
    const int t = idx / (kVs / 8), c = idx % (kVs / 8) * 8;
    const bool in = t < length;
    cp_async16_or_zeros_to(base + L.values(s) + tokens.offset(t, c),
                           v_rows + (in ? std::int64_t(t) * d.H * d.V : 0) + c, in);
  }
  for (int idx = thread; idx < K / 4; idx += kGroup)
    cp_async16_or_zeros_to(base + L.whole(s) + 16 * idx, p.whole + chunk * K + 4 * idx, true);
  cp_async_commit();
}

template <int K, int kVs>
__device__ void loads_role(const PreparedPointers& p, const Dims& d, const PreparedFusedLayout& L,
                           unsigned char* smem, int bh, int b, int h, int v0, const ChunkRun& run,
                           int thread) {
  const unsigned base = shared_address(smem);
  roles::run_loads_ring<kFusedStages, kFusedStages - 1>(
      run.count,
      [&](int j) {
        load_chunk<K, kVs>(p, d, L, base, bh, b, h, v0, run.at<false>(j), j % kFusedStages, thread);
        return NothingFetched{};
      },
      [](int, int, NothingFetched) {});  // the stage is used as it lands
}

// From the head's state `start` to its final state `end` (null: zeros, not kept), saving the state before
// every chunk where `saved` ([chunks][K][V] fp32 at the block's first value column) is not null.
template <int K, int kVs>
__device__ void state_role(const Dims& d, const PreparedFusedLayout& L, unsigned char* smem,
                           const float* start, float* end, float* saved, const ChunkRun& run, int thread) {
  constexpr int kBlocks = K / wgmma::kRows;  // the state's 64-key row blocks, one accumulator each
  const PreparedOperands at{L, shared_address(smem)};
  const int chunks = run.count, top = accumulator_element(thread, 0).row;  // rows top, top + 8 of a block
  float S[kBlocks][kVs / 2];
  roles::load_state(S, start, d.V, thread);
  for (int n = 0; n < chunks; ++n) {
    const int s = n % kFusedStages;
    roles::hand_over_state<K>(S, smem + L.state(0), smem + L.state(1), 0, n, thread);
    if (saved) roles::store_state(S, saved + std::int64_t(run.at<false>(n)) * K * d.V, d.V, thread);
    stage_full(s).sync_unaligned();
    const float* whole = reinterpret_cast<const float*>(smem + L.whole(s));
#pragma unroll
    for (int m = 0; m < kBlocks; ++m) {
      // the decay of each of this thread's two keys (rows) over the chunk
      const float e_whole[2] = {exp_flushed(whole[wgmma::kRows * m + top]),
                                exp_flushed(whole[wgmma::kRows * m + top + 8])};
#pragma unroll
      for (int r = 0; r < kVs / 2; ++r) S[m][r] *= e_whole[(r >> 1) & 1];
      wgmma::hold(S[m]);
    }
    wgmma::fence();
#pragma unroll
    for (int m = 0; m < kBlocks; ++m)
#pragma unroll
      for (int step = 0; step < C / wgmma::kDepth; ++step) {
        const std::uint64_t v = at.values(s, step);
        wgmma::product<kVs, 1, 1>(S[m], at.keys_transposed(s, 0, m, step), v, true);
        wgmma::product<kVs, 1, 1>(S[m], at.keys_transposed(s, 1, m, step), v, true);
      }
    wgmma::commit();
    wgmma::wait<0>();
#pragma unroll
    for (int m = 0; m < kBlocks; ++m) wgmma::hold(S[m]);
    if (n + kFusedStages < chunks) stage_empty(s).arrive();
  }
  if (end) roles::store_state(S, end, d.V, thread);
}

// A chunk's scores as this thread holds them in a 64 x 64 accumulator (layout.h; pairs of registers r, r + 1
// at r / 2), read from the operands pass's fp32 rows, and rwkv6's bonus for its two rows (top, top + 8; zero
// for gla, whose diagonal A holds).
struct ChunkScores {
  float2 pairs[C / 4];
  float bonus[2];
};
__device__ inline ChunkScores load_scores(const PreparedPointers& p, std::int64_t chunk, int thread) {
  ChunkScores x;
  const float* A = p.scores + chunk * C * C;
#pragma unroll
  for (int r = 0; r < C / 2; r += 2) {
    const wgmma::Element e = accumulator_element(thread, r);
    x.pairs[r / 2] = *reinterpret_cast<const float2*>(A + e.row * C + e.column);
  }
  const int top = accumulator_element(thread, 0).row;
  x.bonus[0] = p.bonus ? p.bonus[chunk * C + top] : 0.0f;
  x.bonus[1] = p.bonus ? p.bonus[chunk * C + top + 8] : 0.0f;
  return x;
}

// The scores times `scale` in two bf16 parts, as the A fragments of A v (register r of a 64 x 64 accumulator
// is element r % 8 of depth step r / 8's fragment: layout.h); rwkv6's bonus on the diagonal, where its A is
// zero (the output reads the state before its own token).
template <bool kBonus>
__device__ void scores_fragments(const ChunkScores& x, float scale, int thread,
                                 std::uint32_t (&high)[C / wgmma::kDepth][4],
                                 std::uint32_t (&low)[C / wgmma::kDepth][4]) {
#pragma unroll
  for (int step = 0; step < C / wgmma::kDepth; ++step)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = 8 * step + 2 * i;
      float2 pair = x.pairs[r / 2];
      if constexpr (kBonus) {
        const wgmma::Element e = accumulator_element(thread, r);
        if (e.column == e.row) pair.x = x.bonus[(r >> 1) & 1];
        if (e.column + 1 == e.row) pair.y = x.bonus[(r >> 1) & 1];
      }
      const Parts<bf16> parts = split<bf16>(scale * pair.x, scale * pair.y);
      high[step][i] = parts.high, low[step][i] = parts.low;
    }
}

// The chunks' outputs. q S goes to the tensor cores as soon as the stage and the state are out, and the
// state's buffer is released as soon as its product is done, before A v: the state warpgroup's chain waits on
// q S alone. A is read a chunk ahead, so that its loads' latency hides behind a chunk's products.
template <int K, int kVs, bool kBonus>
__device__ void outputs_role(const PreparedPointers& p, const Dims& d, const PreparedFusedLayout& L,
                             unsigned char* smem, int bh, int b, int h, int v0, const ChunkRun& run,
                             int thread) {
  constexpr int kSteps = C / wgmma::kDepth;  // A's 16-token column steps: the depth of A v
  const PreparedOperands at{L, shared_address(smem)};
  const int chunks = run.count;
  const std::int64_t first = std::int64_t(bh) * d.chunks() + run.first;  // the run's first chunk's index
  ChunkScores next = load_scores(p, first, thread);
  for (int n = 0; n < chunks; ++n) {
    const int s = n % kFusedStages, t0 = run.at<false>(n) * C, length = min(C, d.T - t0);
    stage_full(s).sync_unaligned();
    state_full().sync();
    float o[kVs / 2];
    wgmma::fence();
    roles::product_with_state_parts<K, kVs>(
        o, [&](int step) { return at.queries(s, step); },
        [&](int part, int step) { return at.state(part, step); });
    wgmma::commit();
    std::uint32_t high[kSteps][4], low[kSteps][4];
    scores_fragments<kBonus>(next, d.scale, thread, high, low);
    if (n + 1 < chunks) next = load_scores(p, first + n + 1, thread);
    wgmma::fence();  // the fragments' registers, for the products
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      const std::uint64_t v = at.values(s, step);
      wgmma::product<kVs, 1>(o, high[step], v, true);
      wgmma::product<kVs, 1>(o, low[step], v, true);
    }
    wgmma::commit();
    wgmma::wait<1>();  // q S: the state's buffer is read
    if (n + 1 < chunks) state_empty().arrive();
    wgmma::wait<0>();
    wgmma::hold(o);
    if (n + kFusedStages < chunks) stage_empty(s).arrive();
    // from the registers, after the stage goes back (through its queries' tile, as simple_gla's passes
    // store, gained nothing here: kernels/notes/chunk.md, versions 114-115)
    store_outputs_from_registers(o, p.o + d.row(b, h, t0) * d.V + v0, std::int64_t(d.H) * d.V, length, 1.0f,
                                 thread);
  }
}

// grid (B H, V / Vs), kFusedThreads threads, L.bytes() of shared memory.
// grid (B H, V / Vs, segments): a block takes segment blockIdx.z of its head's value slice from the
// segment's start state (the first from h0); only the last segment's writes ht.
template <int K, int kVs, bool kBonus>
__global__ void __launch_bounds__(kFusedThreads, 1)
    prepared_fused_forward_kernel(PreparedPointers p, Dims d, PreparedFusedLayout L, Segments seg) {
  extern __shared__ unsigned char raw[];
  const BlockPlace at = block_place(raw, d.H, K, d.V, kVs, p.h0, p.ht);
  const ChunkRun run = segment_run(seg, d.chunks());
  if (at.role == 0)
    loads_role<K, kVs>(p, d, L, at.smem, at.bh, at.b, at.h, at.v0, run, at.thread);
  else if (at.role == 1)
    state_role<K, kVs>(d, L, at.smem, segment_start(seg, at, K, d.V), segment_end(seg, at),
                       p.saved ? p.saved + std::int64_t(at.bh) * d.chunks() * K * d.V + at.v0 : nullptr, run,
                       at.thread);
  else
    outputs_role<K, kVs, kBonus>(p, d, L, at.smem, at.bh, at.b, at.h, at.v0, run, at.thread);
}

}  // namespace
}  // namespace chunk

bool prepared_fused_forward_runs(const RecurrenceForm& form, const Problem& p, const DeviceLimits& limits) {
  if (!wgmma::built_for_sm90a() || limits.compute_capability != 90) return false;
  // gla's form, or rwkv6's (the output before the update, with the bonus)
  if (form.gate != GateKind::per_key || form.output_before_update != form.bonus) return false;
  if (p.dtype != DType::bf16 || p.chunk_size != chunk::kFusedChunk || (p.K != 64 && p.K != 128) ||
      p.V % 32 != 0)
    return false;
  const auto layout = [](int K, int Vs) { return chunk::PreparedFusedLayout{K, Vs}; };
  return chunk::fused_forward_fits(p, limits, layout);
}

void prepared_fused_forward(const RecurrenceBinding& binding, const ForwardCall& call,
                            const DeviceLimits& limits, const chunk::FusedSegments& segments,
                            const float* starts) {
  using chunk::PreparedPointers;
  const Problem& problem = call.problem;
  const chunk::Dims d = chunk::make_dims(problem);
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, problem);
  PreparedPointers p{};
  p.queries = reinterpret_cast<const __nv_bfloat16*>(ws.queries_from_start);
  p.keys = reinterpret_cast<const __nv_bfloat16*>(ws.keys_to_end);
  p.plane = std::int64_t(d.B) * d.H * d.chunks() * d.C * d.K;  // the keys' low part (workspace.cuh)
  p.whole = ws.whole, p.scores = ws.scores, p.bonus = binding.form.bonus ? ws.bonus : nullptr;
  p.v = call.inputs.at(binding.v).as<const __nv_bfloat16>();
  p.h0 = role_input<float>(call.inputs, binding.h0);
  p.o = call.outputs.at(binding.o).as<__nv_bfloat16>();
  p.ht = call.outputs.at(binding.ht).as<float>();
  p.saved = call.save_for_backward ? ws.states : nullptr;  // where a backward follows, the states it reads
  const chunk::Segments seg = chunk::whole_or_split({segments, starts}, d.chunks());
  const int Vs = chunk::fused_value_slice(d.B * d.H, d.V, limits.multiprocessors);
  with_one_of<64, 128>(d.K, [&](auto K) {
    with_one_of<32, 64>(Vs, [&](auto kVs) {
      const chunk::PreparedFusedLayout L{K.value, kVs.value};
      const auto launch = [&](auto kernel) {
        allow_shared_memory(kernel, L.bytes());
        kernel<<<dim3(unsigned(d.B * d.H), unsigned(d.V / kVs.value), unsigned(segments.count)),
                 chunk::kFusedThreads, L.bytes(), call.stream>>>(p, d, L, seg);
        FLA_CUDA_CHECK_LAUNCH();
      };
      if (binding.form.bonus)
        launch(chunk::prepared_fused_forward_kernel<K.value, kVs.value, true>);
      else
        launch(chunk::prepared_fused_forward_kernel<K.value, kVs.value, false>);
    });
  });
}

}  // namespace flabench
