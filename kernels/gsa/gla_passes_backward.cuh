// gsa's fused_recurrent backward on gla's fused_recurrent kernels, after the gla passes' forward
// (gla_passes.cuh), which leaves the fp32 logits, p in the inputs' type and the checkpoints of Hk^T and Hv:
//   pass 2   gla's backward with q = p, k = s, g = f, v = v: dv, dHv0, pass 2's ds and df, and (its dq, in
//            fp32) dp = Hv_t do_t;
//   softmax  dz = p (dp - p . dp), p again in fp32 from the logits;
//   pass 1   taken transposed (first_pass_transposed): Hk^T [M x K] steps as diag(e^{f_t}) Hk^T + s_t k_t^T,
//            gla's own recurrence with keys s, values k and decay f on its rows. gla's backward with queries
//            dz and output gradient q gives pass 1's ds (its dk), dk (its dv), df (its dg) and dHk0^T, its
//            row pass from the checkpoints of Hk^T the forward's pass 1 saved, adding its ds and df to pass
//            2's (GradPointers::add_dk_dg). Its dq, scale Hk_t^T q_t = z_t, is not written. Where warps are
//            few the row pass runs beside the column pass (as fused::run_backward runs gla's);
//   dq       scale Hk_t dz_t, every chunk at once from those checkpoints (query_grads.cuh; kernels/notes/
//            gsa.md, version 28); over segments, once for the whole sequence after every scan (version 31).
// Where the sequence is long enough (backward_segments) the scans run over segments backwards in time: each
// pass's column passes segment after segment, handing dS on, and every segment's row work at once beside
// them (backward_pipelined). Hk's state gradients cross between gsa's [K x M] and gla's [M x K] layout in a
// transpose each way. Every scan only multiplies by e^{f} <= 1, as gla's do: f down to -40 cannot overflow.
#pragma once

#include <cstdint>

#include "kernels/gsa/fused_workspace.h"
#include "kernels/gsa/gla_passes.cuh"
#include "kernels/gsa/query_grads.cuh"
#include "kernels/gsa/transpose_states.h"

namespace flabench::gsa::gla_passes {

// One segment's scans, tokens [t0, t0 + length) of every sequence (the whole sequence where there is one
// segment): pass 2's and pass 1's backward passes, from the state gradients after the segment (d_hvt, d_hkt:
// Hv's and Hk^T's) to those before it (dhv0, dhk0).
template <class T>
struct SegmentScans {
  fused::BackwardPasses<GlaForm, T> values, keys;
};

// Where the backward keeps what it makes (FusedWorkspace::gla_backward) and what it reads.
template <class T>
struct BackwardBuffers {
  float* dp;  // fp32: dz = p (dp - p . dp) cancels where dp's slots are alike
  T* dz;
  float *dhkt_t, *dhk0_t;
  float *key_checkpoints, *value_checkpoints;
  const float* logits;
  const T* weights;
};

// The backward's scans over the whole sequence, made once a call; segment() gives a segment's.
template <class T>
struct Scans {
  const Problem& p;
  const gsa::Pointers<T>& in;
  const gsa::GradPointers<T>& d;
  const BackwardBuffers<T>& r;
  fused::BackwardPasses<GlaForm, T> values, keys;

  Scans(const Problem& p, const gsa::Pointers<T>& in, const gsa::GradPointers<T>& d,
        const BackwardBuffers<T>& r)
      : p(p),
        in(in),
        d(d),
        r(r),
        values(pass_pointers<T>(r.weights, in.s, in.v, in.f, nullptr, nullptr, nullptr),
               flabench::GradPointers<T>{d.d_o, nullptr, nullptr, d.ds, d.dv, d.df, nullptr, nullptr, nullptr,
                                         nullptr, r.dp},
               second_pass(p), r.value_checkpoints),
        keys(pass_pointers<T>(r.dz, in.s, in.k, in.f, nullptr, nullptr, nullptr),
             flabench::GradPointers<T>{in.q, nullptr, nullptr, d.ds, d.dk, d.df, nullptr, nullptr, nullptr,
                                       nullptr, nullptr, /*add_dk_dg=*/true},
             first_pass_transposed(p), r.key_checkpoints) {}

  // Both of a pass's scans start from the state gradient after the segment (backward_pipelined hands it on
  // from the column passes); the row passes leave the one before it in dhv0 and dhk0 where those are set.
  // Pass 1's row pass adds to the ds and df of pass 2's: it runs after pass 2's on one stream.
  SegmentScans<T> segment(int t0, int length, const float* d_hvt, float* dhv0, const float* d_hkt,
                          float* dhk0) const {
    return {values.segment(t0, length, d_hvt, dhv0, nullptr), keys.segment(t0, length, d_hkt, dhk0, nullptr)};
  }

  // dq of tokens [t0, t0 + length), once their dz is made.
  void query_grads(int t0, int length, cudaStream_t stream) const {
    launch_query_grads<T>(p, r.key_checkpoints, in.s, in.f, in.k, r.dz, d.dq, t0, length, stream);
  }
};

// The softmax gradient of a segment's rows: dz from dp and the logits.
template <class T>
void segment_softmax_grad(const Problem& p, const BackwardBuffers<T>& r, int t0, int length,
                          cudaStream_t stream) {
  const std::int64_t row = std::int64_t(t0) * p.H;
  launch_softmax_grad<T>(r.logits + row * p.M, r.dp + row * p.M, r.dz + row * p.M, nullptr,
                         p.B * length * p.H, int(p.M), 1.0f, stream, RowRuns{length * p.H, p.T * p.H});
  FLA_CUDA_CHECK_LAUNCH();
}

// One segment: pass 2's backward, the softmax gradient and dq, then pass 1's two scans, side by side where
// warps are few (as fused::run_backward runs gla's).
template <class T>
void backward_whole(const Problem& p, const Scans<T>& whole, const SegmentScans<T>& scans,
                    const BackwardBuffers<T>& r, cudaStream_t stream) {
  fused::run_backward(scans.values, stream);
  segment_softmax_grad<T>(p, r, 0, int(p.T), stream);
  whole.query_grads(0, int(p.T), stream);
  if (scans.keys.g.side_by_side) {
    const ForkedStream fork(stream);
    scans.keys.rows(stream);
    scans.keys.columns(fork.side());
  } else {
    scans.keys.columns(stream);
    scans.keys.rows(stream);
  }
}

// n segments pipelined backwards in time. Each pass's column passes run segment after segment, each
// handing dS before its segment to the one before it (`handoffs`, FusedWorkspace::gla_handoffs); every
// other scan of a segment needs only that dS and its own segment's inputs, so the segments' row work runs
// at once on FusedWorkspace::kGlaRowStreams side streams (as fused_recurrent's own backward over segments:
// kernels/notes/fused_recurrent.md, versions 54-55). The call's stream runs pass 2's column passes; a side
// stream pass 1's, each after its segment's softmax gradient; a segment's row stream pass 2's row pass once
// segment i + 1's column pass is done, the softmax gradient, then pass 1's row pass once pass 1's column
// pass of segment i + 1 is done (each row pass beside its pass's column pass of segment i). Only the first
// segment's row passes write the state gradients before them: the others' are the column passes' handoffs
// (kernels/notes/gsa.md, versions 24 and 28). dq is left to the caller: a segment's dq beside the scans held
// SMs their chains waited for, and once over the whole sequence it runs as one wide grid (version 31).
template <class T>
void backward_pipelined(const Scans<T>& whole, float* handoffs, int n, cudaStream_t stream) {
  const Problem& p = whole.p;
  const gsa::GradPointers<T>& d = whole.d;
  const BackwardBuffers<T>& r = whole.r;
  constexpr int kRowStreams = FusedWorkspace::kGlaRowStreams, kRooms = FusedWorkspace::kGlaHandoffs;
  static_assert(kRowStreams + 1 <= ForkedStream::kSides);
  const std::int64_t heads = p.B * p.H, value_state = heads * p.M * p.V, key_state = heads * p.M * p.K;
  float* const value_handoffs = handoffs;  // the column passes'
  float* const key_handoffs = value_handoffs + kRooms * value_state;
  const fused::SegmentPlan plan = fused::backward_plan(p.T, n);
  n = plan.count;
  ForkedStream key_columns(stream, 0);
  ForkedStream rows[kRowStreams] = {ForkedStream(stream, 1), ForkedStream(stream, 2), ForkedStream(stream, 3),
                                    ForkedStream(stream, 4), ForkedStream(stream, 5)};
  for (int i = n - 1; i >= 0; --i) {
    const bool last = i == n - 1, first = i == 0;
    const int t0 = int(plan.start[i]), tokens = plan.tokens(i);
    const int lane = i % kRowStreams;
    // the state gradients after segment i, as segment i + 1's column passes handed them on
    const float* d_hvt = last ? d.d_hvt : value_handoffs + i * value_state;
    const float* d_hkt = last ? r.dhkt_t : key_handoffs + i * key_state;
    SegmentScans<T> scans =
        whole.segment(t0, tokens, d_hvt, first ? d.dhv0 : nullptr, d_hkt, first ? r.dhk0_t : nullptr);
    if (!first) {
      scans.values.column_handoff = value_handoffs + (i - 1) * value_state;
      scans.keys.column_handoff = key_handoffs + (i - 1) * key_state;
    }
    const cudaStream_t row = rows[lane].side();
    rows[lane].hand_over();  // pass 2's row pass starts from segment i + 1's dHv, beside segment i's columns
    scans.values.columns(stream);
    scans.values.rows(row);
    segment_softmax_grad<T>(p, r, t0, tokens, row);
    order_streams(key_columns.side(), row);  // pass 1's row pass starts from segment i + 1's dHk^T
    order_streams(row, key_columns.side());  // pass 1's column pass of segment i reads its dz
    scans.keys.columns(key_columns.side());
    scans.keys.rows(row);
  }
}

// The backward after forward(): its logits, weights (p in T) and both passes' checkpoints, in FusedWorkspace
// w.
template <class T>
void backward(const BackwardCall& call) {
  const Problem& p = call.problem;
  const gsa::Pointers<T> in = bind_inputs<T>(call.inputs);
  const gsa::GradPointers<T> d = bind_grads<T>(call);
  const FusedWorkspace w(p);
  float* const base = reinterpret_cast<float*>(call.workspace.data());
  const std::int64_t rows = p.B * p.T * p.H * p.M, state = p.B * p.H * p.K * p.M, heads = p.B * p.H;
  float* const room = base + w.gla_backward;
  const auto token_buffer = [&](int i) { return reinterpret_cast<T*>(room + i * rows); };
  float* const states = room + FusedWorkspace::kGlaTokenBuffers * rows;
  const BackwardBuffers<T> r{room,
                             token_buffer(1),
                             states,
                             states + state,
                             base + w.key_checkpoints,
                             base + w.value_checkpoints,
                             base + w.logits,
                             reinterpret_cast<const T*>(base + w.weights)};
  const cudaStream_t stream = call.stream;

  transpose_states(d.d_hkt, r.dhkt_t, heads, int(p.K), int(p.M), stream);
  const Scans<T> scans(p, in, d, r);
  const int n = backward_segments(p);
  if (n <= 1) {
    backward_whole<T>(p, scans, scans.segment(0, int(p.T), d.d_hvt, d.dhv0, r.dhkt_t, r.dhk0_t), r, stream);
  } else {
    backward_pipelined<T>(scans, base + w.gla_handoffs, n, stream);
    scans.query_grads(0, int(p.T), stream);
  }
  transpose_states(r.dhk0_t, d.dhk0, heads, int(p.M), int(p.K), stream);
}

}  // namespace flabench::gsa::gla_passes
