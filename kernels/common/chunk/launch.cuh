// Launches of the chunk variant's kernels, by Dims rather than by Problem, so that an op whose passes are GLA
// passes over other tensors (gsa: s in k's role, the slots in the key channels' place) launches them with
// its own dims: the prepare kernel (the scan's operand), the scan (states before every chunk, or their
// gradients), the output pass, and the backward's gradients inside the chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/common/chunk/chunk_grads.cuh"
#include "kernels/common/chunk/forward.cuh"
#include "kernels/common/chunk/operands_pass.cuh"
#include "kernels/common/chunk/scan.cuh"
#include "kernels/common/chunk/segment_starts.h"
#include "kernels/common/chunk/state_grad_runs.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/forked_stream.h"
#include "kernels/common/format.h"
#include "kernels/variant.h"
#include "profiles/nvtx_range.h"

namespace flabench::chunk {

// What the chunk kernels index in 32 bits, for the variants' limits: a token's row of every head (heads x the
// widest head dim; staging.cuh, token_rows_fit) and the scan's one-dimensional grid, a block per (batch,
// head, 32 x 32 state tile). Past either, the reason rather than a wrong index.
inline std::optional<std::string> index_limits(std::int64_t batch, std::int64_t heads, std::int64_t widest) {
  if (!token_rows_fit(heads, widest))
    return format("chunk steps through a token's row of %lld heads x %lld elements in 32 bits",
                  static_cast<long long>(heads), static_cast<long long>(widest));
  const double tiles = double((widest + kScanTile - 1) / kScanTile),
               blocks = double(batch) * heads * tiles * tiles;
  if (blocks > double(INT_MAX))
    return format(
        "chunk's scan takes a block per batch, head and 32 x 32 state tile: %.0f blocks, over 2^31 - 1",
        blocks);
  return std::nullopt;
}

inline std::size_t prepare_shared_bytes(int C, int K) {
  return sizeof(float) * (Decays::floats(C, K) + C * K);
}
inline std::size_t output_shared_bytes(int C, int K, int VT, std::size_t input_bytes) {
  return sizeof(float) * output_pass_floats(C, K, VT, int(input_bytes));
}
// The output pass's value tile: 128 where V needs it and it fits the current device's shared memory.
inline int output_values(const Dims& d, std::size_t input_bytes) {
  const std::size_t optin = current_device_limits().shared_memory_per_block;
  return d.V > 64 && output_shared_bytes(d.C, d.K, 128, input_bytes) <= optin ? 128 : 64;
}

// The scan's operand for every chunk (chunk_prepare_kernel) and, for the forward, each chunk's summed decay;
// bf16's second part left out where `second_part` says skipped (no scan follows); the backward's from
// `queries` (of type Q) where given, else from pointers.q.
template <class Form, class T, Operand kind, class Q = T>
void launch_prepare(const Pointers<T>& pointers, const Dims& d, const Workspace& ws, cudaStream_t stream,
                    SecondPart second_part = SecondPart::written, const Q* queries = nullptr) {
  static_assert(std::is_same_v<Q, T> || kind == Operand::queries_from_start,
                "queries of their own: backward's");
  if constexpr (std::is_same_v<Q, T>)
    if (!queries) queries = pointers.q;
  const std::size_t bytes = prepare_shared_bytes(d.C, d.K);
  const auto kernel = chunk_prepare_kernel<Form, T, kind, Q>;
  allow_shared_memory(kernel, bytes);
  kernel<<<dim3(unsigned(d.B * d.H), unsigned(d.chunks())), kPrepareThreads, bytes, stream>>>(
      pointers, d, ws, queries, second_part == SecondPart::written);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class T, bool kScalarGate = false>
void launch_scan(const Scan<T>& scan, const Dims& d, cudaStream_t stream) {
  const int blocks = scan_blocks(d.B * d.H, d.K, d.V);
  const bool tiles_together =
      std::int64_t(blocks) * scan.runs > current_device_attribute(cudaDevAttrMultiProcessorCount);
  chunk_scan_kernel<T, kScalarGate>
      <<<dim3(unsigned(blocks), unsigned(scan.runs)), kScanThreads, 0, stream>>>(scan, d, tiles_together);
  FLA_CUDA_CHECK_LAUNCH();
}

// `scan` over the runs of `plan`'s every segment but the last at once from zeros (their end states and
// decays into `scratch` as `at` says), then the fold of those from `initial` into every segment's start but
// the first's (segment_starts.h). The caller sets the scan's direction and what it saves.
template <class T, bool kScalarGate>
void runs_then_fold(Scan<T> scan, const float* initial, const Dims& d, float* scratch,
                    const FusedSegments& plan, const SegmentScratch& at, cudaStream_t stream) {
  {
    const NvtxRange range("segment_runs");
    scan.initial = nullptr, scan.last = scratch + at.ends, scan.decays = scratch + at.decays;
    scan.runs = segment_runs(plan), scan.run_chunks = plan.run_chunks;
    launch_scan<T, kScalarGate>(scan, d, stream);
  }
  const NvtxRange range("segment_starts");
  launch_segment_starts(initial, scratch, plan, d.B * d.H, d.K, d.V, stream);
}

// Where a one-kernel forward splits the sequence (fused_plan.h, FusedSegments): `scan` (the forward's, over
// its operand, rows and decays) over the runs of every segment but the last from zeros, then every segment's
// start state from those and `h0`, in `scratch` (segment_scratch's room: the workspace's state gradients,
// which no forward writes); returns where the starts are.
template <class T, bool kScalarGate = false>
const float* segment_starts(Scan<T> scan, const float* h0, const Dims& d, float* scratch,
                            const FusedSegments& plan, cudaStream_t stream) {
  const SegmentScratch at = segment_scratch(plan, d.B * d.H, d.K, d.V);
  scan.saved = nullptr, scan.reverse = false;
  runs_then_fold<T, kScalarGate>(scan, h0, d, scratch, plan, at, stream);
  return scratch + at.starts;
}

// The state gradients' reverse scan `scan` (from scan.initial, the final state's gradient, saving into
// scan.saved and ending in scan.last, the initial state's) in `plan`'s runs (state_grad_runs.h): every run
// from zeros at once, saving each chunk's run-local gradient and decay factor, the fold of the runs into
// their starts (the last one copied to scan.last), all in `scratch` (state_grad_runs_scratch's room).
// Returns what the gradients' readers add (StateGradStarts).
template <class T, bool kScalarGate = false>
StateGradStarts state_grads_in_runs(Scan<T> scan, const Dims& d, float* scratch, const StateGradRuns& plan,
                                    cudaStream_t stream) {
  const int heads = d.B * d.H;
  const StateGradRunsScratch at = state_grad_runs_scratch(plan, heads, d.chunks(), d.K, d.V);
  const FusedSegments fold = state_grad_fold(plan);
  float* initial_grad = scan.last;
  const float* final_grad = scan.initial;
  scan.reverse = true, scan.saved_decays = scratch + at.gammas;
  runs_then_fold<T, kScalarGate>(scan, final_grad, d, scratch, fold, at.fold, stream);
  const std::size_t state = sizeof(float) * d.K * d.V;
  FLA_CUDA_CHECK(cudaMemcpy2DAsync(initial_grad, state,
                                   scratch + at.fold.starts + (plan.runs - 1) * d.K * d.V, plan.runs * state,
                                   state, heads, cudaMemcpyDeviceToDevice, stream));
  return {scratch + at.fold.starts, final_grad, scratch + at.gammas, plan.runs, plan.run_chunks};
}

// o for every chunk and query head from the states before the chunks; with `scores` (and `bonus`, rwkv6's)
// each chunk's intra-chunk scores kept for the backward (Workspace::scores; query heads = key/value heads);
// with `row_scales` ([B, T, HQ] fp32) each row of o times its own factor; with `queries` the queries read
// from there in place of pointers.q (required where Q is not T: fp32 for gsa's fp16 dq pass).
template <class Form, class T, class Q = T>
void launch_output(const Pointers<T>& pointers, const Dims& d, const float* states, cudaStream_t stream,
                   float* scores = nullptr, float* bonus = nullptr, const float* row_scales = nullptr,
                   const Q* queries = nullptr) {
  if constexpr (std::is_same_v<Q, T>)
    if (!queries) queries = pointers.q;
  const int VT = output_values(d, sizeof(T));
  const std::size_t bytes = output_shared_bytes(d.C, d.K, VT, sizeof(T));
  const auto launch = [&](auto kernel) {
    allow_shared_memory(kernel, bytes);
    kernel<<<dim3(unsigned(d.B * d.H * d.G), unsigned(d.chunks()), unsigned((d.V + VT - 1) / VT)),
             unsigned(output_threads(VT)), bytes, stream>>>(pointers, queries, d, states, VT, scores, bonus,
                                                            row_scales);
  };
  if (output_key_tile(d.C, d.K) < d.K)
    launch(chunk_output_kernel<Form, T, true, Q>);
  else
    launch(chunk_output_kernel<Form, T, false, Q>);
  FLA_CUDA_CHECK_LAUNCH();
}

// Every operand the state and output pass over prepared operands reads (operands_pass.cuh), into ws; with
// `for_backward` the queries' rows in both parts, the backward's reverse scan's operand.
template <class Form, class T>
void launch_operands(const Pointers<T>& pointers, const Dims& d, const Workspace& ws, bool for_backward,
                     cudaStream_t stream) {
  const int KT = operands_key_tile(d.K);
  const std::size_t bytes = sizeof(float) * operands_pass_floats(d.C, d.K, KT);
  const auto kernel = chunk_operands_kernel<Form, T>;
  allow_shared_memory(kernel, bytes);
  kernel<<<dim3(unsigned(d.B * d.H), unsigned(d.chunks())), kOperandsThreads, bytes, stream>>>(
      pointers, d, ws, KT, for_backward);
  FLA_CUDA_CHECK_LAUNCH();
}

inline std::size_t value_grads_shared_bytes(Scores scores, int C, int K, std::size_t input_bytes,
                                            bool output = false) {
  return sizeof(float) * value_grads_floats(C, value_grads_channels(scores, C, K), int(input_bytes),
                                            scores != Scores::saved, output);
}
// Whether the value gradients can make the pass's forward output too (chunk_value_grads_kernel's kOutput):
// where they rebuild A whole, in a room that fits `device` (grown where v's rows are wider than k's).
inline bool value_grads_output_fits(const Dims& d, std::size_t input_bytes, const DeviceLimits& device) {
  const Scores scores = value_grads_scores(false, d.C, d.K);
  return scores == Scores::rebuilt &&
         value_grads_shared_bytes(scores, d.C, d.K, input_bytes, true) <= device.shared_memory_per_block;
}
inline std::size_t key_grads_shared_bytes(int C, std::size_t input_bytes) {
  return sizeof(float) * key_grads_floats(C, int(input_bytes));
}

// The scan's operand for every chunk, then the scan, in NVTX ranges of the forward's or backward's names.
template <class Form, class T, Operand kind, class Q = T>
void prepare_and_scan(const Pointers<T>& pointers, const Dims& d, const Workspace& ws, const Scan<T>& scan,
                      cudaStream_t stream, const Q* queries = nullptr) {
  {
    const NvtxRange range(kind == Operand::keys_to_end ? "decays" : "decays_seen");
    launch_prepare<Form, T, kind, Q>(pointers, d, ws, stream, SecondPart::written, queries);
  }
  const NvtxRange range(kind == Operand::keys_to_end ? "states" : "state_grads");
  launch_scan(scan, d, stream);
}

// The forward's states as the backward reads them: the prepared keys and each chunk's decays, then the scan
// (the state before every chunk, and the final state into p.ht).
template <class Form, class T>
void forward_states(const Pointers<T>& p, const Dims& d, const Workspace& ws, cudaStream_t stream) {
  prepare_and_scan<Form, T, Operand::keys_to_end>(
      p, d, ws,
      {reinterpret_cast<const Prepared<T>*>(ws.keys_to_end), p.v, ws.whole, p.h0, ws.states, p.ht, false},
      stream);
}

// The reverse scan over the chunks for the state gradients, from its operand (queries_from_start).
template <class T>
Scan<T> state_grads_scan(const GradPointers<T>& grads, const Workspace& ws) {
  const auto* operand = reinterpret_cast<const Prepared<T>*>(ws.queries_from_start);
  return {operand, grads.d_o, ws.whole, grads.d_ht, ws.dstates, grads.dh0, /*reverse=*/true};
}

// The backward over any tensors in GLA's roles (gsa runs its two passes through it), in two launches a
// caller may place on different streams: launch_state_grads, the reverse scan for the state gradients (a
// chain over the chunks, latency-bound where heads are few), then launch_chunk_grads, the gradients inside
// every chunk (wide launches) from those. The forward's states, whole decays and keys_to_end operand are read
// from ws, and with kSavedScores its intra-chunk scores (launch_output's).
// With `queries` (of type Q) the scan's operand is made from those in place of pointers.q: gsa's passes give
// their queries (p, dz) in fp32 there, so that their rounding to the inputs' dtype stays off the state
// gradients (kernels/notes/gsa.md, version 44).
template <class Form, class T, class Q = T>
void launch_state_grads(const Pointers<T>& pointers, const GradPointers<T>& grads, const Dims& d,
                        const Workspace& ws, cudaStream_t stream, const Q* queries = nullptr) {
  prepare_and_scan<Form, T, Operand::queries_from_start, Q>(pointers, d, ws, state_grads_scan(grads, ws),
                                                            stream, queries);
}

// With `key_grads_after`, the key gradients start only after the work enqueued on that stream so far (gsa's
// pass 1 adding its dk and dg to what pass 2's backward on a side stream writes: GradPointers::add_dk_dg).
// With kOutput the value gradients write the pass's forward output to pointers.o as well (where
// value_grads_output_fits).
template <class Form, class T, bool kSavedScores = false, bool kOutput = false>
void launch_chunk_grads(const Pointers<T>& pointers, const GradPointers<T>& grads, const Dims& d,
                        const Workspace& ws, cudaStream_t stream, cudaStream_t key_grads_after = nullptr) {
  static_assert(!(kSavedScores && kOutput), "the forward output where A is rebuilt");
  const dim3 chunks(unsigned(d.B * d.H), unsigned(d.chunks()));
  const Scores scores = value_grads_scores(kSavedScores, d.C, d.K);
  if (kOutput && scores != Scores::rebuilt)
    throw std::logic_error(
        "chunk: the value gradients make the forward output only where A is rebuilt whole");
  const std::size_t value_bytes = value_grads_shared_bytes(scores, d.C, d.K, sizeof(T), kOutput),
                    key_bytes = key_grads_shared_bytes(d.C, sizeof(T));
  const unsigned tiles = unsigned(key_tiles(d.K));
  {
    const NvtxRange range("value_grads");
    const auto launch = [&](auto kernel) {
      allow_shared_memory(kernel, value_bytes);
      kernel<<<dim3(chunks.x, chunks.y, unsigned((d.V + kGradValues - 1) / kGradValues)),
               unsigned(value_grads_threads(d.C, d.K)), value_bytes, stream>>>(pointers, grads, d, ws);
    };
    if constexpr (kSavedScores)
      launch(chunk_value_grads_kernel<Form, T, Scores::saved>);
    else if constexpr (kOutput)
      launch(chunk_value_grads_kernel<Form, T, Scores::rebuilt, true>);
    else if (scores == Scores::rebuilt_in_tiles)
      launch(chunk_value_grads_kernel<Form, T, Scores::rebuilt_in_tiles>);
    else
      launch(chunk_value_grads_kernel<Form, T, Scores::rebuilt>);
    FLA_CUDA_CHECK_LAUNCH();
  }
  if (key_grads_after) order_streams(key_grads_after, stream);
  {
    const NvtxRange range("key_grads");
    const auto launch = [&](auto kernel, int threads) {
      allow_shared_memory(kernel, key_bytes);
      kernel<<<dim3(chunks.x, chunks.y, tiles), unsigned(threads), key_bytes, stream>>>(pointers, grads, d,
                                                                                        ws);
    };
    if (key_grads_threads(d.C, sizeof(T)) == kKeyGradThreads)
      launch(chunk_key_grads_kernel<Form, T, kKeyGradThreads>, kKeyGradThreads);
    else if constexpr (sizeof(T) == 2)  // only 16-bit inputs take more: no instance for the others
      launch(chunk_key_grads_kernel<Form, T, kKeyGradMaxThreads>, kKeyGradMaxThreads);
    FLA_CUDA_CHECK_LAUNCH();
  }
  if constexpr (Form::value.gate == GateKind::per_head) {
    const NvtxRange range("sum_key_tiles");
    const std::int64_t rows = std::int64_t(d.B) * d.T * d.H;
    chunk_sum_key_tiles_kernel<T>
        <<<unsigned((rows + 255) / 256), 256, 0, stream>>>(ws.dg_partial, grads.dg, d, int(tiles));
    FLA_CUDA_CHECK_LAUNCH();
  }
  if constexpr (Form::value.bonus) {
    const NvtxRange range("sum_bonus_grad");
    sum_parts(ws.du_partial, grads.du, 1, d.B * d.chunks(), std::int64_t(d.H) * d.K, stream);
  }
}

// Both on one stream: the chunk variant's backward (and another variant's after prepare_from_inputs).
// `queries_made`: the reverse scan's operand is already in ws (the forward's operands pass,
// operands_pass.cuh, or prepare_from_inputs), so the scan runs without a prepare of its own.
template <class Form, class T, bool kSavedScores = false>
void launch_backward(const Pointers<T>& pointers, const GradPointers<T>& grads, const Dims& d,
                     const Workspace& ws, cudaStream_t stream, bool queries_made) {
  if (queries_made) {
    const NvtxRange range("state_grads");
    launch_scan(state_grads_scan(grads, ws), d, stream);
  } else {
    launch_state_grads<Form, T>(pointers, grads, d, ws, stream);
  }
  launch_chunk_grads<Form, T, kSavedScores>(pointers, grads, d, ws, stream);
}

}  // namespace flabench::chunk
