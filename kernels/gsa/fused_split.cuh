// gsa's fused_recurrent forward as two kernels (kernels/gsa/fused_recurrent.cu picks it where one kernel's
// pass 1 would hold more than 8 keys per thread, and wherever a backward follows): the two passes as two
// scans, each with its fp32 state in registers, joined by an fp32 workspace of logits [B, T, HQ, M]. Both
// kernels are written for a state of M slots against an X (keys or values), so the backward
// (fused_backward.cuh) runs them again with other tensors in those roles.
// - slot scan (pass 1, SlotScan): a thread owns kRows elements of one slot's vector (Hk's column m); the
// slots
//   are independent, so the blocks of a head split the M slots and each SM holds a part of one head's Hk.
//   Per chunk of kChunk tokens the block stages x, y (every query head), s and f of its slots with cp.async
//   one chunk ahead, converts them to fp32 once (exp(f) taken once), steps its slots and writes scale h . y
//   per query head (each thread leaves a partial per token; a slot's X / kRows partials are added at the
//   chunk's end, off the per-token path).
// - slot mix (pass 2, SlotMix): a thread owns kRows slots of one column x of a state over the slots (Hv's
//   column j of the block's slice of V); per chunk the block stages x, s, f and the chunk's weights (taking
//   the softmax over M of each (token, query head) row of logits in fp32, one warp per row), steps its
//   columns and writes o = Hv_t^T p (partials added at the chunk's end likewise).
// Split this way neither kernel repeats the other's work per block, and each spreads its state over as many
// SMs as the heads allow. Decays enter only as exp(f) <= 1: f down to -40 cannot overflow.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/common/cuda_check.h"
#include "kernels/common/format.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/gsa/fused_plan.h"
#include "kernels/gsa/fused_rows.cuh"
#include "kernels/gsa/pointers.cuh"

namespace flabench::gsa::split {

// The staged rows and their fp32 conversions, per kernel. Every staged row is a multiple of 16 bytes under
// limits() (K, M >= 32; at least 8 columns per block of a 2-byte type), so a record is the plain sum.
enum ScanSegment { kScanX, kScanY, kScanSlots, kScanGates };
enum MixSegment { kMixX, kMixSlots, kMixGates, kMixWeights };

// A scan whose state is M slot vectors of X elements (pass 1: Hk's columns, X = K; the backward's dp:
// Hv's rows, X = V): slot m's vector steps as e^{f_m} h + s_m x_t, and out[t, g, m] = scale h . y_{t,g}.
template <class T>
struct SlotScan {
  const T *x, *y, *s, *f;  // x [B, T, H, X]; y [B, T, HQ, X]; s, f [B, T, H, M]
  const float* h0;
  float* ht;           // null: not wanted
  float* out;          // [B, T, HQ, M], fp32
  float* checkpoints;  // null, or the state before every kChunk-th token: [B*H, chunks] states of X x M
  StateLayout layout;
  float scale;
};

// A scan whose state is X vectors over the M slots (pass 2: Hv's columns, x a value; the backward's dq:
// Hk's rows, x a key): column x steps as e^{f} . h + s x_t[x], and out[t, g, x] = h . w_{t,g}.
template <class T>
struct SlotMix {
  const T *x, *s, *f;    // x [B, T, H, X]; s, f [B, T, H, M]
  const float* weights;  // [B, T, HQ, M]: the slot weights w, or logits whose softmax they are
  bool softmax;          // weights holds logits
  const float* h0;
  float* ht;  // null: not wanted
  T* out;     // [B, T, HQ, X]
  StateLayout layout;
};

template <class T>
fused::StagePlan scan_stage(const SlotScan<T>& a, int G, int columns) {
  fused::StagePlan plan;
  const int X = a.layout.X, M = a.layout.M;
  plan.add(a.x, sizeof(T), X, X);
  plan.add(a.y, sizeof(T), G * X, G * X);  // head h's query heads are G adjacent rows: one row of G x X
  plan.add(a.s, sizeof(T), M, columns, columns);
  plan.add(a.f, sizeof(T), M, columns, columns);
  return plan;
}
template <class T>
fused::StagePlan mix_stage(const SlotMix<T>& a, int G, int columns) {
  fused::StagePlan plan;
  const int X = a.layout.X, M = a.layout.M;
  plan.add(a.x, sizeof(T), X, columns, columns);
  plan.add(a.s, sizeof(T), M, M);
  plan.add(a.f, sizeof(T), M, M);
  plan.add(a.weights, sizeof(float), G * M, G * M);  // like y: the G query heads' rows are adjacent
  return plan;
}

// SlotScan for slots [m0, m0 + columns) of (batch, head) blockIdx.x.
template <class T, int kRows>
__global__ void __launch_bounds__(kMaxThreads, 1)
    gsa_slot_scan_kernel(SlotScan<T> a, Dims d, int columns, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const int X = a.layout.X, M = d.M, G = d.G;
  float* const xs = smem;                          // [C][X]
  float* const ys = xs + kChunk * X;               // [C][G][X]
  float* const slots = ys + kChunk * G * X;        // [C][columns]
  float* const decays = slots + kChunk * columns;  // [C][columns]
  float* const parts = decays + kChunk * columns;  // [C][G][threads]
  char* const ring_base = reinterpret_cast<char*>(parts + kChunk * G * blockDim.x);
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, m0 = blockIdx.y * columns;
  const ElementsOfSlot<kRows> me(a.layout, columns, m0);
  const int groups = X / kRows, m = me.column, group = me.group, stride = me.stride;
  const std::int64_t offset = me.offset;
  const std::int64_t state_size = std::int64_t(X) * M, chunks = (d.T + kChunk - 1) / kChunk;

  float state[kRows];
  load_column(state, a.h0 + a.layout.head(bh) + offset, stride);

  for_each_staged_chunk(stage, ring_base, d, [&](fused::ChunkSpan span, const char* rows) {
    if (a.checkpoints && me.writes)
      store_column(a.checkpoints + checkpoint_start(bh, span.t0 / kChunk, chunks, state_size) + offset, state,
                   stride);
    convert_rows<T>(stage, rows, kScanX, span.length, X, xs, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kScanY, span.length, G * X, ys, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kScanSlots, span.length, columns, slots, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kScanGates, span.length, columns, decays, threadIdx.x, blockDim.x, true);
    __syncthreads();
    step_chunk<kRows, false>(span.length, G, parts, [&](int t, auto&& sink) {
      step_slot_vector(state, decays[t * columns + m], slots[t * columns + m], xs + t * X + group * kRows);
      for (int g = 0; g < G; ++g) sink(g, column_dot(state, ys + (t * G + g) * X + group * kRows));
    });
    __syncthreads();
    finish_column_sums(parts, span.length * G, columns, groups, [&](int row, int column, float sum) {
      a.out[d.query_row(b, span.t0 + row / G, h, row % G) * M + m0 + column] = a.scale * sum;
    });
  });
  if (a.ht && me.writes) store_column(a.ht + a.layout.head(bh) + offset, state, stride);
}

// SlotMix for columns [x0, x0 + columns) of (batch, head) blockIdx.x.
template <class T, int kRows>
__global__ void __launch_bounds__(kMaxThreads, 1)
    gsa_slot_mix_kernel(SlotMix<T> a, Dims d, int columns, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const int X = a.layout.X, M = d.M, G = d.G;
  float* const xs = smem;                         // [C][columns]
  float* const slots = xs + kChunk * columns;     // [C][M]
  float* const decays = slots + kChunk * M;       // [C][M]
  float* const weights = decays + kChunk * M;     // [C][G][M]
  float* const parts = weights + kChunk * G * M;  // [C][G][threads]
  char* const ring_base = reinterpret_cast<char*>(parts + kChunk * G * blockDim.x);
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, x0 = blockIdx.y * columns;
  const SlotsOfColumn<kRows> me(a.layout, columns, x0);
  const int slot_groups = M / kRows, j = me.column, slot_group = me.group;

  float state[kRows];
  load_column(state, a.h0 + me.base, me.stride);

  for_each_staged_chunk(stage, ring_base, d, [&](fused::ChunkSpan span, const char* rows) {
    convert_rows<T>(stage, rows, kMixX, span.length, columns, xs, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kMixSlots, span.length, M, slots, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kMixGates, span.length, M, decays, threadIdx.x, blockDim.x, true);
    convert_rows<float>(stage, rows, kMixWeights, span.length, G * M, weights, threadIdx.x, blockDim.x);
    if (a.softmax) {
      __syncthreads();
      softmax_rows(weights, span.length * G, M, threadIdx.x / 32, blockDim.x / 32);
    }
    __syncthreads();
    step_chunk<kRows, false>(span.length, G, parts, [&](int t, auto&& sink) {
      step_value_column(state, decays + t * M + slot_group * kRows, slots + t * M + slot_group * kRows,
                        xs[t * columns + j]);
      for (int g = 0; g < G; ++g) sink(g, column_dot(state, weights + (t * G + g) * M + slot_group * kRows));
    });
    __syncthreads();
    finish_column_sums(parts, span.length * G, columns, slot_groups, [&](int row, int column, float sum) {
      a.out[d.query_row(b, span.t0 + row / G, h, row % G) * X + x0 + column] = from_float<T>(sum);
    });
  });
  if (a.ht && me.writes) store_column(a.ht + me.base, state, me.stride);
}

// Launches one of these scans over (B x H, plan.split) blocks.
template <class Kernel, class Args>
void launch_over_heads(Kernel kernel, const Args& a, const Problem& p, const KernelPlan& plan,
                       std::size_t shared, const fused::StagePlan& stage, cudaStream_t stream) {
  allow_shared_memory(kernel, shared);
  kernel<<<dim3(unsigned(p.B * p.H), unsigned(plan.split)), plan.threads, shared, stream>>>(
      a, make_dims(p), plan.columns, stage);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_scan(const SlotScan<T>& a, const Problem& p, int sm_count, cudaStream_t stream) {
  const KernelPlan plan = scan_plan(p, a.layout.X, sm_count);
  with_rows<4>(plan.rows, [&](auto rows) {
    launch_over_heads(gsa_slot_scan_kernel<T, decltype(rows)::value>, a, p, plan,
                      scan_shared_bytes(p, a.layout.X, plan), scan_stage(a, int(p.G), plan.columns), stream);
  });
}

template <class T>
void launch_mix(const SlotMix<T>& a, const Problem& p, int sm_count, cudaStream_t stream) {
  const KernelPlan plan = mix_plan(p, a.layout.X, sm_count);
  with_rows<4>(plan.rows, [&](auto rows) {
    launch_over_heads(gsa_slot_mix_kernel<T, decltype(rows)::value>, a, p, plan, mix_shared_bytes(p, plan),
                      mix_stage(a, int(p.G), plan.columns), stream);
  });
}

// Pass 1 writes the logits into `logits` (and Hk's checkpoints when `key_checkpoints` is set); pass 2 reads
// them.
template <class T>
void forward(const ForwardCall& call, float* logits, float* key_checkpoints) {
  const Problem& p = call.problem;
  const int sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
  const Pointers<T> in = bind_forward<T>(call);
  launch_scan(SlotScan<T>{in.k, in.q, in.s, in.f, in.hk0, in.hkt, logits, key_checkpoints, keys_by_slots(p),
                          float(p.scale)},
              p, sms, call.stream);
  launch_mix(SlotMix<T>{in.v, in.s, in.f, logits, /*softmax=*/true, in.hv0, in.hvt, in.o, slots_by_values(p)},
             p, sms, call.stream);
}

// The threads and shared memory pass 1 (X = K) or the backward's dp scan (X = V) and a SlotMix over X
// need for `p`, against `device`; nullopt when they fit.
inline std::optional<std::string> limits(const Problem& p, int scan_X, int mix_X,
                                         const DeviceLimits& device) {
  // one block per head: the most threads and shared memory any GPU's plan takes
  const KernelPlan first = scan_plan(p, scan_X, 1), second = mix_plan(p, mix_X, 1);
  if (first.threads > kMaxThreads || second.threads > kMaxThreads)
    return format("fused_recurrent would need %d and %d threads per block (at most %d)", first.threads,
                  second.threads, kMaxThreads);
  const std::size_t bytes = std::max(scan_shared_bytes(p, scan_X, first), mix_shared_bytes(p, second));
  if (bytes > device.shared_memory_per_block)
    return format("fused_recurrent stages %d tokens in %zu KiB of shared memory, the device allows %zu KiB",
                  kChunk, bytes / 1024, device.shared_memory_per_block / 1024);
  return std::nullopt;
}

}  // namespace flabench::gsa::split
