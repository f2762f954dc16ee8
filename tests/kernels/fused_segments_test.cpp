// fused_recurrent's segments of a sequence (kernels/common/fused_recurrent/segments.h) and the room a
// backward over them needs (workspace.h): the backward takes segments only where sequences are long enough
// for at least four of 256 tokens, about 512 tokens each, at most 16; they cover the sequence in whole wide
// chunks with none empty; and every form whose backward may take them (all but the bonus's) has a room for
// each state one segment hands the one before it, apart from the other regions.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/common/fused_recurrent/segments.h"
#include "kernels/common/fused_recurrent/workspace.h"
#include "kernels/gla/gla.h"
#include "kernels/rwkv6/rwkv6.h"
#include "kernels/rwkv7/rwkv7.h"
#include "kernels/simple_gla/simple_gla.h"
#include "tests/kernels/workspace_regions.h"

namespace flabench::fused {
namespace {

TEST(FusedSegments, TheBackwardTakesSegmentsWhereSequencesAreLong) {
  EXPECT_EQ(backward_segments(1), 1);
  EXPECT_EQ(backward_segments(1023), 1) << "four segments would be under 256 tokens";
  EXPECT_EQ(backward_segments(1024), 4);
  EXPECT_EQ(backward_segments(4096), 8);
  EXPECT_EQ(backward_segments(8192), 16);
  EXPECT_EQ(backward_segments(24576), kMaxSequenceSegments);
}

TEST(FusedSegments, SegmentsCoverTheSequenceInWholeWideChunks) {
  for (std::int64_t T = 1; T <= 40000; T += 37) {
    const int n = backward_segments(T);
    if (n == 1) continue;
    const int tokens = segment_tokens(T, n), covering = segments_covering(T, n);
    SCOPED_TRACE(::testing::Message() << "T=" << T << " n=" << n << " tokens=" << tokens);
    EXPECT_EQ(tokens % kWideChunk, 0) << "a segment's checkpoints start at one of the sequence's";
    EXPECT_GE(tokens, kMinBackwardSegmentTokens);
    EXPECT_LE(covering, n);
    EXPECT_GE(std::int64_t(tokens) * covering, T);
    EXPECT_LT(std::int64_t(tokens) * (covering - 1), T) << "an empty segment";
  }
}

// The regions of WorkspaceLayout<Form>(p) in order, sized for what they hold.
template <class Form>
std::vector<testing::Region> regions(const Problem& p) {
  const WorkspaceLayout<Form> w(p);
  const std::size_t heads = p.B * p.H, tokens = p.B * p.T * p.H, state = heads * p.K * p.V;
  const bool low_rank = Form::value.low_rank, bonus = Form::value.bonus;
  return {{w.checkpoints, heads * ((p.T + kChunk - 1) / kChunk) * p.K * p.V},
          {w.sa, low_rank ? tokens * p.V : 0},
          {w.dsa, low_rank ? tokens * p.V : 0},
          {w.handoffs, bonus ? 0 : std::size_t(kMaxSequenceSegments - 1) * state},
          {w.dg_rows, Form::value.gate == GateKind::per_head ? tokens * p.K : 0},
          {w.du_partial, bonus ? heads * p.K : 0}};
}

TEST(FusedSegments, EveryFormWithSegmentsHasRoomForTheirHandoffs) {
  for (std::int64_t T : {1, 1000, 24576}) {
    const Problem p{2, T, 3, 64, 32, DType::bf16};
    EXPECT_EQ(testing::expect_in_order(regions<GlaForm>(p), 1), WorkspaceLayout<GlaForm>(p).total);
    EXPECT_EQ(testing::expect_in_order(regions<Rwkv7Form>(p), 1), WorkspaceLayout<Rwkv7Form>(p).total);
    EXPECT_EQ(testing::expect_in_order(regions<Rwkv6Form>(p), 1), WorkspaceLayout<Rwkv6Form>(p).total);
    EXPECT_EQ(testing::expect_in_order(regions<SimpleGlaForm>(p), 1),
              WorkspaceLayout<SimpleGlaForm>(p).total);
  }
}

}  // namespace
}  // namespace flabench::fused
