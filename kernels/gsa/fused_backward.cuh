// gsa's fused_recurrent backward: every gradient from scans with fp32 states in registers, each arranged so
// that what it sums per token lies within one state vector (a thread's rows, then its neighbours' lanes).
// The forward (split form, fused_split.cuh) leaves the logits and Hk before every kChunk-th token. Then:
//   1. dp_t = Hv_t do_t: Hv's rows scanned forward again (a SlotScan with x = v, y = do), keeping Hv's
//      checkpoints;
//   2. p = softmax(logits) and dz = scale p (dp - p . dp), per (token, query head) row;
//   3. dq_t = Hk_t dz_t: Hk's rows scanned forward (a SlotMix with x = k, weights dz);
//   4. dv and dk with dHv0, dHk0: the state gradients as vectors over the slots (Hv's columns, Hk's rows),
//      scanned backwards (SlotMixGrad below): dH += sum_g w a^T, out = dH^T s, then dH decays;
//   5. ds and df: the state gradients as slot vectors (Hk's columns, Hv's rows) scanned backwards
//      (SlotScanGrad below), pass 1's then pass 2's: ds_m = dH_m . x_t and df_m = e^{f_m} dH_m . h_{m,t-1},
//      with h_{t-1} recomputed per chunk from the checkpoint into registers. df is formed from the states
//      themselves, not from cumulative sums that cancel at strong decays (kernels/notes/gsa.md).
// 3-5 are independent given dz and p: 5 runs on the call's stream, 3 and 4 beside it on a forked one.
// Every scan only multiplies by e^{f} <= 1: f down to -40 cannot overflow.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "kernels/common/forked_stream.h"
#include "kernels/gsa/fused_split.cuh"
#include "kernels/gsa/fused_workspace.h"

namespace flabench::gsa::split {

// The gradient of a SlotMix's state (vectors over the slots), scanned backwards: at token t column x gains
// sum_g w_{t,g} a_{t,g}[x], gives out[t, x] = dh . s_t, then decays by e^{f_t}; dh0 is what is left.
template <class T>
struct SlotMixGrad {
  const T *a, *s, *f;    // a [B, T, HQ, X]: do (for dv) or q (for dk); s, f [B, T, H, M]
  const float* weights;  // [B, T, HQ, M]: p or dz
  const float* dht;
  float* dh0;
  T* out;  // [B, T, H, X]
  StateLayout layout;
};

// The gradient of a slot scan's state (slot vectors), scanned backwards: at token t slot m's vector gains
// sum_g w_{t,g}[m] y_{t,g}, gives ds = dh . x_t and df = e^{f} dh . h_{t-1}, then decays by e^{f_t}.
template <class T>
struct SlotScanGrad {
  const T *x, *y, *s, *f;    // as the SlotScan's: x [B, T, H, X], y [B, T, HQ, X]
  const float* weights;      // [B, T, HQ, M]: dz (y = q) or p (y = do)
  const float* dht;          // the incoming gradient of the final state
  const float* checkpoints;  // the SlotScan's: the state before every kChunk-th token
  float* sums;               // [2][B, T, H, M]: ds, df; the first of the two scans writes them
  T *ds, *df;                // set on the second, which adds its own and writes these
  StateLayout layout;
};

enum MixGradSegment { kGradA, kGradSlots, kGradGates, kGradWeights };
enum ScanGradSegment { kScanGradX, kScanGradY, kScanGradWeights, kScanGradSlots, kScanGradGates };

template <class T, int kRows>
__global__ void __launch_bounds__(kMaxThreads, 1)
    gsa_slot_mix_grad_kernel(SlotMixGrad<T> a, Dims d, int columns, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const int X = a.layout.X, M = d.M, G = d.G;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, x0 = blockIdx.y * columns;
  const MixGradA staged_a = MixGradA::of(G, X, columns, x0);
  float* const as = smem;                             // [C][staged_a.count]
  float* const slots = as + kChunk * staged_a.count;  // [C][M]
  float* const decays = slots + kChunk * M;           // [C][M]
  float* const weights = decays + kChunk * M;         // [C][G][M]
  float* const parts = weights + kChunk * G * M;      // [C][threads]
  char* const ring_base = reinterpret_cast<char*>(parts + kChunk * blockDim.x);
  const SlotsOfColumn<kRows> me(a.layout, columns, x0);
  const int slot_groups = M / kRows, j = me.column, slot_group = me.group;

  float dh[kRows];
  load_column(dh, a.dht + me.base, me.stride);

  for_each_staged_chunk(
      stage, ring_base, d,
      [&](fused::ChunkSpan span, const char* rows) {
        convert_rows<T>(stage, rows, kGradA, span.length, staged_a.count, as, threadIdx.x, blockDim.x);
        convert_rows<T>(stage, rows, kGradSlots, span.length, M, slots, threadIdx.x, blockDim.x);
        convert_rows<T>(stage, rows, kGradGates, span.length, M, decays, threadIdx.x, blockDim.x, true);
        convert_rows<float>(stage, rows, kGradWeights, span.length, G * M, weights, threadIdx.x, blockDim.x);
        __syncthreads();
        step_chunk<kRows, true>(span.length, 1, parts, [&](int t, auto&& sink) {
          for (int g = 0; g < G; ++g) {
            const float at = as[t * staged_a.count + g * X + staged_a.offset + j];
            const float* w = weights + (t * G + g) * M + slot_group * kRows;
#pragma unroll
            for (int r = 0; r < kRows; ++r) dh[r] = fmaf(w[r], at, dh[r]);
          }
          sink(0, column_dot(dh, slots + t * M + slot_group * kRows));
          const float* e = decays + t * M + slot_group * kRows;
#pragma unroll
          for (int r = 0; r < kRows; ++r) dh[r] *= e[r];
        });
        __syncthreads();
        finish_column_sums(parts, span.length, columns, slot_groups, [&](int t, int column, float sum) {
          a.out[d.head_row(b, span.t0 + t, h) * X + x0 + column] = from_float<T>(sum);
        });
      },
      /*reverse=*/true);
  if (me.writes) store_column(a.dh0 + me.base, dh, me.stride);
}

template <class T, int kPieces>
__global__ void __launch_bounds__(kScanGradThreads, kPieces == 1 ? 1 : 2)
    gsa_slot_scan_grad_kernel(SlotScanGrad<T> a, Dims d, int columns, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const int X = a.layout.X, M = d.M, G = d.G;
  float* const xs = smem;                          // [C][X]
  float* const ys = xs + kChunk * X;               // [C][G][X]
  float* const ws = ys + kChunk * G * X;           // [C][G][M]
  float* const slots = ws + kChunk * G * M;        // [C][columns]
  float* const decays = slots + kChunk * columns;  // [C][columns]
  float* const parts = decays + kChunk * columns;  // [C][2][threads]: ds, df
  char* const ring_base = reinterpret_cast<char*>(parts + kChunk * 2 * blockDim.x);
  constexpr int kRows = kScanGradRows, kPiece = kChunk / kPieces;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, m0 = blockIdx.y * columns;
  const ElementsOfSlot<kRows> me(a.layout, columns, m0);
  const int groups = X / kRows, m = me.column, group = me.group, stride = me.stride;
  const std::int64_t offset = me.offset;
  const std::int64_t state_size = std::int64_t(X) * M, chunks = (d.T + kChunk - 1) / kChunk;
  const std::int64_t tokens = std::int64_t(d.B) * d.T * d.H * M;  // one of the two sums

  float dh[kRows];
  load_column(dh, a.dht + a.layout.head(bh) + offset, stride);

  for_each_staged_chunk(
      stage, ring_base, d,
      [&](fused::ChunkSpan span, const char* rows) {
        convert_rows<T>(stage, rows, kScanGradX, span.length, X, xs, threadIdx.x, blockDim.x);
        convert_rows<T>(stage, rows, kScanGradY, span.length, G * X, ys, threadIdx.x, blockDim.x);
        convert_rows<float>(stage, rows, kScanGradWeights, span.length, G * M, ws, threadIdx.x, blockDim.x);
        convert_rows<T>(stage, rows, kScanGradSlots, span.length, columns, slots, threadIdx.x, blockDim.x);
        convert_rows<T>(stage, rows, kScanGradGates, span.length, columns, decays, threadIdx.x, blockDim.x,
                        true);
        __syncthreads();
        // The chunk's states h_{t-1}, stepped from its checkpoint exactly as the forward stepped them, kept
        // in registers a piece of the chunk at a time (the token loops unrolled): first the state at each
        // piece's start, then, piece by piece from the last, the piece's states from its start.
        const auto step = [&](float(&h)[kRows], int t) {
          step_slot_vector(h, decays[t * columns + m], slots[t * columns + m], xs + t * X + group * kRows);
        };
        float starts[kPieces][kRows];
        load_column(starts[0],
                    a.checkpoints + checkpoint_start(bh, span.t0 / kChunk, chunks, state_size) + offset,
                    stride);
#pragma unroll
        for (int piece = 1; piece < kPieces; ++piece) {
#pragma unroll
          for (int r = 0; r < kRows; ++r) starts[piece][r] = starts[piece - 1][r];
#pragma unroll
          for (int i = 0; i < kPiece; ++i) step(starts[piece], (piece - 1) * kPiece + i);
        }
#pragma unroll
        for (int piece = kPieces - 1; piece >= 0; --piece) {
          float history[kPiece][kRows];
#pragma unroll
          for (int r = 0; r < kRows; ++r) history[0][r] = starts[piece][r];
#pragma unroll
          for (int i = 0; i + 1 < kPiece; ++i) {
#pragma unroll
            for (int r = 0; r < kRows; ++r) history[i + 1][r] = history[i][r];
            step(history[i + 1], piece * kPiece + i);
          }
#pragma unroll
          for (int i = kPiece - 1; i >= 0; --i) {
            const int t = piece * kPiece + i;
            if (t >= span.length) continue;
            for (int g = 0; g < G; ++g) {
              const float w = ws[(t * G + g) * M + m0 + m];
              const float* y = ys + (t * G + g) * X + group * kRows;
#pragma unroll
              for (int r = 0; r < kRows; ++r) dh[r] = fmaf(w, y[r], dh[r]);
            }
            const float e = decays[t * columns + m];
            parts[(t * 2) * blockDim.x + threadIdx.x] = column_dot(dh, xs + t * X + group * kRows);
            float change = 0;
#pragma unroll
            for (int r = 0; r < kRows; ++r) change = fmaf(dh[r], history[i][r], change);
            parts[(t * 2 + 1) * blockDim.x + threadIdx.x] = e * change;
#pragma unroll
            for (int r = 0; r < kRows; ++r) dh[r] *= e;
          }
        }
        __syncthreads();
        finish_column_sums(parts, span.length * 2, columns, groups, [&](int row, int column, float sum) {
          const std::int64_t at = d.head_row(b, span.t0 + row / 2, h) * M + m0 + column;
          float* const total = a.sums + (row % 2) * tokens + at;
          if (!a.ds) {
            *total = sum;
          } else {
            T* const out = row % 2 ? a.df : a.ds;
            out[at] = from_float<T>(*total + sum);
          }
        });
      },
      /*reverse=*/true);
}

template <class T>
fused::StagePlan mix_grad_stage(const SlotMixGrad<T>& a, int G, int columns) {
  fused::StagePlan plan;
  const int X = a.layout.X, M = a.layout.M;
  if (G == 1)
    plan.add(a.a, sizeof(T), X, columns, columns);
  else
    plan.add(a.a, sizeof(T), G * X, G * X);
  plan.add(a.s, sizeof(T), M, M);
  plan.add(a.f, sizeof(T), M, M);
  plan.add(a.weights, sizeof(float), G * M, G * M);
  return plan;
}
template <class T>
fused::StagePlan scan_grad_stage(const SlotScanGrad<T>& a, int G, int columns) {
  fused::StagePlan plan;
  const int X = a.layout.X, M = a.layout.M;
  plan.add(a.x, sizeof(T), X, X);
  plan.add(a.y, sizeof(T), G * X, G * X);
  plan.add(a.weights, sizeof(float), G * M, G * M);
  plan.add(a.s, sizeof(T), M, columns, columns);
  plan.add(a.f, sizeof(T), M, columns, columns);
  return plan;
}

template <class T>
void launch_mix_grad(const SlotMixGrad<T>& a, const Problem& p, int sm_count, cudaStream_t stream) {
  const KernelPlan plan = mix_grad_plan(p, a.layout.X, sm_count);
  with_rows<4>(plan.rows, [&](auto rows) {
    launch_over_heads(gsa_slot_mix_grad_kernel<T, decltype(rows)::value>, a, p, plan,
                      mix_grad_shared_bytes(p, a.layout.X, plan), mix_grad_stage(a, int(p.G), plan.columns),
                      stream);
  });
}

template <class T>
void launch_scan_grad(const SlotScanGrad<T>& a, const Problem& p, int sm_count, cudaStream_t stream) {
  const KernelPlan plan = scan_grad_plan(p, a.layout.X, sm_count);
  launch_over_heads(scan_grad_whole_chunks(p, plan, sm_count) ? gsa_slot_scan_grad_kernel<T, 1>
                                                              : gsa_slot_scan_grad_kernel<T, 4>,
                    a, p, plan, scan_grad_shared_bytes(p, a.layout.X, plan),
                    scan_grad_stage(a, int(p.G), plan.columns), stream);
}

template <class T>
void backward(const BackwardCall& call) {
  const Problem& p = call.problem;
  const int sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
  const Pointers<T> in = bind_inputs<T>(call.inputs);
  const GradPointers<T> g = bind_grads<T>(call);
  const FusedWorkspace w(p);
  float* const base = reinterpret_cast<float*>(call.workspace.data());
  float *logits = base + w.logits, *weights = base + w.weights, *dz = base + w.logit_grads;
  float *key_checkpoints = base + w.key_checkpoints, *value_checkpoints = base + w.value_checkpoints;
  const StateLayout keys = keys_by_slots(p), values = slots_by_values(p);

  // 1. dp into dz's place; Hv's checkpoints kept
  launch_scan(SlotScan<T>{in.v, g.d_o, in.s, in.f, in.hv0, nullptr, dz, value_checkpoints, values, 1.0f}, p,
              sms, call.stream);
  // 2. p, and dp becomes dz
  const std::int64_t rows = p.B * p.T * p.H * p.G;
  launch_softmax_grad<float>(logits, dz, dz, weights, rows, int(p.M), float(p.scale), call.stream);
  FLA_CUDA_CHECK_LAUNCH();
  // 3-5 need only dz and p: the reverse scans of ds and df (the longest) on the call's stream, dq, dv and dk
  // beside them on a forked one (kernels/notes/gsa.md, version 13: 0.73-0.98x of one after the other).
  const auto mixes = [&](cudaStream_t stream) {
    launch_mix(SlotMix<T>{in.k, in.s, in.f, dz, /*softmax=*/false, in.hk0, nullptr, g.dq, keys}, p, sms,
               stream);
    launch_mix_grad(SlotMixGrad<T>{g.d_o, in.s, in.f, weights, g.d_hvt, g.dhv0, g.dv, values}, p, sms,
                    stream);
    launch_mix_grad(SlotMixGrad<T>{in.q, in.s, in.f, dz, g.d_hkt, g.dhk0, g.dk, keys}, p, sms, stream);
  };
  const auto slot_scans = [&](cudaStream_t stream) {  // pass 1's ds, df into the sums, then pass 2's added
    float* const sums = base + w.slot_sums;
    launch_scan_grad(
        SlotScanGrad<T>{in.k, in.q, in.s, in.f, dz, g.d_hkt, key_checkpoints, sums, nullptr, nullptr, keys},
        p, sms, stream);
    launch_scan_grad(SlotScanGrad<T>{in.v, g.d_o, in.s, in.f, weights, g.d_hvt, value_checkpoints, sums, g.ds,
                                     g.df, values},
                     p, sms, stream);
  };
  const ForkedStream fork(call.stream);
  slot_scans(call.stream);
  mixes(fork.side());
}

// Why the backward's kernels cannot run `p` on `device`, or nullopt.
inline std::optional<std::string> backward_limits(const Problem& p, const DeviceLimits& device) {
  if (auto why = limits(p, int(p.V), int(p.K), device)) return why;  // the dp scan and the dq mix
  for (const int X : {int(p.K), int(p.V)}) {
    const KernelPlan mix = mix_grad_plan(p, X, 1), scan = scan_grad_plan(p, X, 1);
    if (mix.threads > kMaxThreads || scan.threads > kScanGradThreads)
      return format("fused_recurrent's backward would need %d and %d threads per block (at most %d and %d)",
                    mix.threads, scan.threads, kMaxThreads, kScanGradThreads);
    const std::size_t bytes = std::max(mix_grad_shared_bytes(p, X, mix), scan_grad_shared_bytes(p, X, scan));
    if (bytes > device.shared_memory_per_block)
      return format(
          "fused_recurrent's backward keeps %d tokens of states in %zu KiB of shared memory, the "
          "device allows %zu KiB",
          kChunk, bytes / 1024, device.shared_memory_per_block / 1024);
  }
  return std::nullopt;
}

}  // namespace flabench::gsa::split
