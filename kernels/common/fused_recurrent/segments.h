// How a sequence splits into segments that fused_recurrent's passes run one after another with states
// handed between them (Geometry::sequence_stride), so that scans can be pipelined over them: gsa's forward
// and backward (kernels/gsa/gla_passes_plan.h) and the fused backward's passes (variant.cuh,
// run_backward_pipelined). Host-safe: tests/kernels/fused_segments_test.cpp checks it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/common/fused_recurrent/layout.h"

namespace flabench::fused {

constexpr int kMinSequenceSegments = 4;  // fewer leave too little of two scans side by side
constexpr int kMaxSequenceSegments = 16;
// A backward's segments: about kBackwardSegmentTokens tokens each, none under kMinBackwardSegmentTokens.
constexpr int kBackwardSegmentTokens = 512, kMinBackwardSegmentTokens = 256;
static_assert(kMinBackwardSegmentTokens % kWideChunk == 0);

// Segments to pipeline a backward over, backwards in time: at least kMinSequenceSegments of at least
// kMinBackwardSegmentTokens tokens, about one per kBackwardSegmentTokens, at most kMaxSequenceSegments;
// else 1 (kernels/notes/gsa.md, version 22; kernels/notes/fused_recurrent.md, version 54).
inline int backward_segments(std::int64_t T) {
  if (T < std::int64_t(kMinSequenceSegments) * kMinBackwardSegmentTokens) return 1;
  return int(
      std::clamp<std::int64_t>(T / kBackwardSegmentTokens, kMinSequenceSegments, kMaxSequenceSegments));
}

// Tokens to each of n segments of T (the last may be shorter): whole wide column chunks, so every
// segment's checkpoints start at one of the sequence's.
inline int segment_tokens(std::int64_t T, int n) {
  const std::int64_t tokens = (T + n - 1) / n;
  return int((tokens + kWideChunk - 1) / kWideChunk * kWideChunk);
}

// How many segments of segment_tokens(T, n) cover T (whole wide chunks may leave fewer than n).
inline int segments_covering(std::int64_t T, int n) {
  const int tokens = segment_tokens(T, n);
  return int((T + tokens - 1) / tokens);
}

}  // namespace flabench::fused
