// How a sequence splits into segments that fused_recurrent's passes run one after another with states
// handed between them (Geometry::sequence_stride), so that scans can be pipelined over them: gsa's forward
// and backward (kernels/gsa/gla_passes_plan.h) and the fused backward's passes (variant.cuh,
// run_backward_pipelined). Host-safe: tests/kernels/fused_segments_test.cpp checks it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "kernels/common/fused_recurrent/layout.h"

namespace flabench::fused {

constexpr int kMinSequenceSegments = 4;  // fewer leave too little of two scans side by side
constexpr int kMaxSequenceSegments = 16;
// A backward's segments: about kBackwardSegmentTokens tokens each, none under kMinBackwardSegmentTokens.
constexpr int kBackwardSegmentTokens = 512, kMinBackwardSegmentTokens = 256;
static_assert(kMinBackwardSegmentTokens % kWideChunk == 0);

// Segments to pipeline a sequence of T tokens over: at least kMinSequenceSegments of at least `shortest`
// tokens, about one per `about`, at most kMaxSequenceSegments; else 1.
inline int sequence_segments(std::int64_t T, int about, int shortest) {
  if (T < std::int64_t(kMinSequenceSegments) * shortest) return 1;
  return int(std::clamp<std::int64_t>(T / about, kMinSequenceSegments, kMaxSequenceSegments));
}

// Segments to pipeline a backward over, backwards in time (kernels/notes/gsa.md, version 22;
// kernels/notes/fused_recurrent.md, version 54). backward_plan lays them out.
inline int backward_segments(std::int64_t T) {
  return sequence_segments(T, kBackwardSegmentTokens, kMinBackwardSegmentTokens);
}

// Tokens to each of n segments of T (the last may be shorter): whole wide column chunks, so every
// segment's checkpoints start at one of the sequence's.
inline int segment_tokens(std::int64_t T, int n) {
  const std::int64_t tokens = (T + n - 1) / n;
  return int((tokens + kWideChunk - 1) / kWideChunk * kWideChunk);
}

// Where a backward's segments start: start[i] for i < count, start[count] = T.
struct SegmentPlan {
  int count = 1;
  std::array<std::int64_t, kMaxSequenceSegments + 1> start{};
  int tokens(int i) const { return int(start[i + 1] - start[i]); }
};

// The first segment of a backward over segments, and how its segments grow: segment i takes
// kFirstBackwardSegmentTokens + t_i / kBackwardSegmentGrowthDivisor tokens (t_i: the tokens before it,
// rounded up to wide chunks) until that reaches segment_tokens(T, n); the rest of the sequence is split
// evenly.
constexpr int kFirstBackwardSegmentTokens = 64, kBackwardSegmentGrowthDivisor = 2;
static_assert(kFirstBackwardSegmentTokens % kWideChunk == 0);

// The backward's n segments (backward_segments) as they run: backwards in time, so the first segment's row
// pass is the last work of the backward. Its row pass waits for the column passes of every later segment and
// takes about twice as long a token as a column pass (kernels/notes/fused_recurrent.md, version 56): short
// segments at the start let the last row passes end soon after the last column pass, and growing ones
// keep each earlier-started row pass within the column passes still to run.
inline SegmentPlan backward_plan(std::int64_t T, int n) {
  const auto whole_chunks = [](std::int64_t x) { return (x + kWideChunk - 1) / kWideChunk * kWideChunk; };
  const std::int64_t even = segment_tokens(T, n);
  SegmentPlan plan;
  plan.count = 0;
  std::int64_t t = 0;
  for (;;) {
    const std::int64_t length = whole_chunks(kFirstBackwardSegmentTokens + t / kBackwardSegmentGrowthDivisor);
    if (length >= even || t + length >= T || plan.count == kMaxSequenceSegments - 1) break;
    plan.start[plan.count++] = t;
    t += length;
  }
  const std::int64_t rest = T - t;
  const int pieces =
      int(std::clamp<std::int64_t>((rest + even - 1) / even, 1, kMaxSequenceSegments - plan.count));
  const std::int64_t length = whole_chunks((rest + pieces - 1) / pieces);
  for (; t < T; t += length) plan.start[plan.count++] = t;
  plan.start[plan.count] = T;
  return plan;
}

}  // namespace flabench::fused
