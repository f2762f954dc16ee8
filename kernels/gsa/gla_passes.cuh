// gsa's fused_recurrent forward on gla's fused_recurrent kernels (kernels/common/fused_recurrent/), where
// one query head reads each state pair (G = 1):
//   pass 1   the fused forward with a per-value gate: Hk [K x M] steps as Hk diag(e^{f_t}) + k_t s_t^T and
//            writes the fp32 logits z_t = scale Hk_t^T q_t ([B, T, H, M], workspace);
//   softmax  p_t = softmax(z_t) over the M slots in fp32, stored in the inputs' type (as the chunk variant
//            stores it);
//   pass 2   gla's fused forward itself: q = p, k = s, g = f, v = v, scale 1; Hv [M x V] is its state.
// Both scans so take the layouts, wide chunks and converter warps of gla's forward (kernels/notes/
// fused_recurrent.md); gsa's own joint and split kernels remain for grouped queries. Where a backward follows
// (gla_passes_backward.cuh), both passes save checkpoints for gla's backward (pass 1 its state transposed),
// each segment's at its chunks' places in the sequence's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "kernels/common/forked_stream.h"
#include "kernels/common/fused_recurrent/variant.cuh"
#include "kernels/common/lane_sum.cuh"
#include "kernels/gla/gla.h"
#include "kernels/gsa/gla_passes_plan.h"
#include "kernels/gsa/pointers.cuh"
#include "kernels/gsa/softmax_rows.cuh"

namespace flabench::gsa::gla_passes {

// p = softmax(z) over each row of M logits: M / 8 lanes a row, eight neighbouring logits a lane (two 16-byte
// loads, one 16-byte store of 16-bit weights), so a warp keeps several rows' bytes in flight (one logit a
// lane and row ran at 2.1 TB/s). Rows come in `runs` (a segment of every sequence).
// Where `weights_fp32` is set, p goes there in fp32 too (it may be `logits` itself: each lane reads its
// eight before it writes them).
template <class T>
__global__ void __launch_bounds__(256) softmax_kernel(const float* logits, T* weights, float* weights_fp32,
                                                      std::int64_t rows, RowRuns runs, int M) {
  const int lanes = M / 8;  // a power of two: M in {32, 64, 128}
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x, index = thread / lanes;
  const bool valid = index < rows;  // every lane takes part in the shuffles; a row's lanes are neighbours
  const std::int64_t at = runs.row(index) * M + int(thread % lanes) * 8;
  float x[8] = {};
  if (valid) load_eight(logits + at, x);
  softmax_of_eight(x, lanes);
  if (!valid) return;
  store_eight(weights + at, x);
  if (weights_fp32) store_eight(weights_fp32 + at, x);
}

// Whether this form takes `p`'s forward (and, with `backward`, the backward that follows it:
// gla_passes_backward.cuh) on `device`: one query head a state pair, M as the softmax kernels take it (and
// gsa's other forms), and every pass within gla's fused limits (its K and V, the device's shared memory).
inline bool fits(const Problem& p, bool backward, const DeviceLimits& device) {
  if (p.G != 1 || !(p.M == 32 || p.M == 64 || p.M == 128)) return false;
  return !fused::limits<KeysForm>(first_pass(p), Mode::fwd, device) &&
         !fused::limits<GlaForm>(second_pass(p), backward ? Mode::fwdbwd : Mode::fwd, device) &&
         !(backward && fused::limits<GlaForm>(first_pass_transposed(p), Mode::fwdbwd, device));
}

// A pass's pointers as gla's fused forward takes them (no bonus, no low-rank term).
template <class T>
flabench::Pointers<T> pass_pointers(const T* q, const T* k, const T* v, const T* g, const float* h0, T* o,
                                    float* ht) {
  return {q, k, v, g, nullptr, nullptr, nullptr, h0, o, ht};
}

// Where a backward follows, what it reads of the forward: the rooms of both passes' checkpoints, Hk^T's
// [B H, checkpoints, M, K] (the per-value-gate forward saves its state transposed, as both backwards read
// pass 1) and Hv's [B H, checkpoints, M, V], which of them `plan` saves, and p in fp32 (`weights_fp32`,
// [B, T, H, M]) where the backward reads it (the chunk variant's). Null where none follows.
// `values_transposed`: Hv's saved as [B H, checkpoints, V, M] instead (values_saved_transposed), for a
// backward that transposes them back.
struct Checkpoints {
  float *keys = nullptr, *values = nullptr;
  CheckpointPlan plan;
  float* weights_fp32 = nullptr;
  bool values_transposed = false;
};

// The layout gla's kernels pick for `pass` (of form Form) over a segment of sequences of `tokens` tokens
// (pass.T the segment's): the sequences `tokens` apart, the checkpoints `saves` keeps at their places in the
// whole sequence's.
template <class Form, class T>
fused::Geometry segment_geometry(const Problem& pass, std::int64_t tokens, const CheckpointPlan& saves) {
  fused::Geometry g = fused::with_checkpoints_every(fused::launch_geometry<Form, T>(pass), saves.every,
                                                    /*packed=*/saves.every > 1);
  if (pass.T < tokens) g = pipelined_geometry(g);  // a segment: the other pass runs beside it
  g.sequence_stride = int(tokens);
  g.checkpoint_stride = int(saves.per_sequence(tokens));
  return g;
}

// The first checkpoint of a segment from token t0 (whole wide chunks) in `room`, of states of `state` floats.
inline float* segment_checkpoints(float* room, int t0, std::int64_t state, const CheckpointPlan& saves) {
  return room ? room + saves.first(t0) * state : nullptr;
}

// Pass 1, the softmax and pass 2 of tokens [t0, t0 + length) of every sequence, from the states in hk0 and
// hv0 to those in hkt and hvt (the checkpoints of those tokens into `saves`), pass 1 on `keys_stream`, the
// rest on `values_stream` once `handoff` (where there is one) has handed pass 1's logits over.
template <class T>
void run_passes(const Problem& p, const gsa::Pointers<T>& in, float* logits, T* weights, int t0, int length,
                const float* hk0, const float* hv0, float* hkt, float* hvt, const Checkpoints& saves,
                cudaStream_t keys_stream, cudaStream_t values_stream, ForkedStream* handoff) {
  Problem part = p;
  part.T = length;
  const std::int64_t row = std::int64_t(t0) * p.H;  // the segment's first token row in the first sequence
  const flabench::Pointers<T> keys =
      pass_pointers<T>(in.q + row * p.K, in.k + row * p.K, in.s + row * p.M, in.f + row * p.M, hk0,
                       reinterpret_cast<T*>(logits + row * p.M), hkt);
  // A segment's passes run beside each other: each in pairs of blocks on a TPC's two SMs, so that no TPC
  // holds one block of each (then each ran 1.2-1.3x its time alone; kernels/notes/gsa.md, version 51)
  const bool beside = part.T < p.T;
  fused::launch_forward<KeysForm, T>(keys, segment_geometry<KeysForm, T>(first_pass(part), p.T, saves.plan),
                                     segment_checkpoints(saves.keys, t0, p.K * p.M, saves.plan), nullptr,
                                     keys_stream, beside);
  if (handoff) handoff->hand_over();
  const std::int64_t rows = part.B * part.T * part.H;
  softmax_kernel<T><<<unsigned((rows * (p.M / 8) + 255) / 256), 256, 0, values_stream>>>(
      logits + row * p.M, weights + row * p.M, saves.weights_fp32 ? saves.weights_fp32 + row * p.M : nullptr,
      rows, RowRuns{part.T * p.H, p.T * p.H}, int(p.M));
  FLA_CUDA_CHECK_LAUNCH();
  const flabench::Pointers<T> values = pass_pointers<T>(
      weights + row * p.M, in.s + row * p.M, in.v + row * p.V, in.f + row * p.M, hv0, in.o + row * p.V, hvt);
  fused::Geometry values_layout = segment_geometry<GlaForm, T>(second_pass(part), p.T, saves.plan);
  if (saves.values_transposed && values_layout.KPT >= 16)
    throw std::logic_error("gsa's pass 2 saves its states transposed below 16 keys a lane only");
  values_layout.checkpoints_transposed = saves.values_transposed;
  fused::launch_forward<GlaForm, T>(values, values_layout,
                                    segment_checkpoints(saves.values, t0, p.M * p.V, saves.plan), nullptr,
                                    values_stream, beside);
}

// Work of the backward's that a saving forward runs on its call's stream once pass 1 is done with it: where
// the forward is pipelined, beside pass 2's last two segments, whose blocks leave half the SMs idle
// (pipelined_geometry; kernels/notes/gsa.md, version 58). `inputs(stream)` reads the inputs alone;
// `values(stream, tokens)` pass 2's checkpoints of the first `tokens` tokens (tail_values_tokens), done by
// then.
struct Tail {
  std::function<void(cudaStream_t)> inputs;
  std::function<void(cudaStream_t, std::int64_t tokens)> values;
};

// The forward: `logits` (fp32) and `weights` (T) hold [B, T, H, M] each, kept for the backward where one
// follows, as are the checkpoints in `saves`; `handoff_room` holds the states one segment hands the next
// (2 (B H K M + B H M V) floats, wherever segments() is above 1). `tail` runs where one is given.
template <class T>
void forward(const ForwardCall& call, float* logits, T* weights, float* handoff_room, Checkpoints saves,
             const Tail& tail = {}) {
  const Problem& p = call.problem;
  const gsa::Pointers<T> in = bind_forward<T>(call);
  if (!call.save_for_backward) saves = {};
  const int schedulers = 4 * current_device_attribute(cudaDevAttrMultiProcessorCount);
  const int n = segments(p, schedulers);
  const std::int64_t tail_tokens = tail_values_tokens(p, schedulers);
  const auto run_tail = [&](std::int64_t tokens, ForkedStream* marked) {
    if (tail.inputs) tail.inputs(call.stream);
    if (!tail.values || tokens == 0) return;
    if (marked) marked->wait_for_mark();  // pass 2 of those tokens
    tail.values(call.stream, tokens);
  };
  if (n <= 1) {
    run_passes<T>(p, in, logits, weights, 0, int(p.T), in.hk0, in.hv0, in.hkt, in.hvt, saves, call.stream,
                  call.stream, nullptr);
    run_tail(0, nullptr);
    return;
  }
  const std::int64_t keys_state = p.B * p.H * p.K * p.M, values_state = p.B * p.H * p.M * p.V;
  float* const hk[2] = {handoff_room, handoff_room + keys_state};
  float* const hv[2] = {handoff_room + 2 * keys_state, handoff_room + 2 * keys_state + values_state};
  const int length = segment_tokens(p.T, n);
  ForkedStream fork(call.stream);
  for (int i = 0, t0 = 0; t0 < p.T; ++i, t0 += length) {
    const bool last = t0 + length >= p.T;
    run_passes<T>(p, in, logits, weights, t0, int(std::min<std::int64_t>(length, p.T - t0)),
                  i == 0 ? in.hk0 : hk[(i - 1) % 2], i == 0 ? in.hv0 : hv[(i - 1) % 2],
                  last ? in.hkt : hk[i % 2], last ? in.hvt : hv[i % 2], saves, call.stream, fork.side(),
                  &fork);
    if (t0 + length == tail_tokens) fork.mark();
  }
  run_tail(tail_tokens, &fork);
}

}  // namespace flabench::gsa::gla_passes
