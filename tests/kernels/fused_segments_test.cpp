// fused_recurrent's segments of a sequence (kernels/common/fused_recurrent/segments.h) and the room a
// backward over them needs (workspace.h): the backward takes segments only where sequences are long enough
// for at least four of 256 tokens, about 512 tokens each, at most 16; they grow from 64 tokens at the
// sequence's start and cover it in whole wide chunks with none empty; and every form whose backward may take
// them (all but the bonus's) has a room for each state one segment hands the one before it, apart from the
// other regions.
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
    const SegmentPlan plan = backward_plan(T, n);
    SCOPED_TRACE(::testing::Message() << "T=" << T << " n=" << n << " segments=" << plan.count);
    EXPECT_GE(plan.count, n);
    EXPECT_LE(plan.count, kMaxSequenceSegments) << "a handoff room each but the last";
    EXPECT_EQ(plan.start[0], 0);
    EXPECT_EQ(plan.start[plan.count], T);
    for (int i = 0; i < plan.count; ++i) {
      EXPECT_GT(plan.tokens(i), 0) << "segment " << i << " is empty";
      EXPECT_EQ(plan.start[i] % kWideChunk, 0) << "segment " << i << "'s checkpoints start at the sequence's";
      EXPECT_LE(plan.tokens(i), 2 * segment_tokens(T, n)) << "segment " << i;
    }
  }
}

// Short segments at the start (the backward's last row passes), each growing by half the tokens before it
// until the even split's length; the rest even.
TEST(FusedSegments, SegmentsGrowFromTheSequencesStart) {
  const auto lengths = [](std::int64_t T) {
    const SegmentPlan plan = backward_plan(T, backward_segments(T));
    std::vector<int> tokens;
    for (int i = 0; i < plan.count; ++i) tokens.push_back(plan.tokens(i));
    return tokens;
  };
  EXPECT_EQ(lengths(1024), (std::vector<int>{64, 96, 160, 224, 256, 224}));
  EXPECT_EQ(lengths(4096), (std::vector<int>{64, 96, 160, 224, 352, 480, 480, 480, 480, 480, 480, 320}));
  EXPECT_EQ(lengths(4100), (std::vector<int>{64, 96, 160, 224, 352, 512, 544, 544, 544, 544, 516}));
  const std::vector<int> long_run = lengths(24576);
  ASSERT_EQ(long_run.size(), std::size_t(kMaxSequenceSegments));
  EXPECT_EQ(long_run[0], kFirstBackwardSegmentTokens);
  for (std::size_t i = 1; i < 8; ++i) EXPECT_GT(long_run[i], long_run[i - 1]) << "growing at segment " << i;
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
