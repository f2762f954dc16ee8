// gsa's forward and backward on gla's fused_recurrent kernels (kernels/gsa/gla_passes_plan.h) on the CPU:
// the two passes (and pass 1 transposed, for the backward) are the problems gla's kernels see; the passes are
// pipelined over segments only where a sequence's two scans leave schedulers room (few heads, a long enough
// sequence); the segments cover the sequence in whole wide chunks (so each segment's checkpoints start at a
// chunk of the sequence's); and the states they hand on fit the workspace room they borrow (the backward's,
// unused in the forward: both passes' checkpoint rooms take checkpoints there).
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/gsa/fused_workspace.h"
#include "kernels/gsa/gla_passes_plan.h"

namespace flabench::gsa::gla_passes {
namespace {

constexpr int kH100Schedulers = 132 * 4;

Problem gsa_problem(std::int64_t B, std::int64_t T, std::int64_t H, std::int64_t D, std::int64_t M) {
  Problem p{B, T, H, D, D, DType::bf16};
  p.M = M, p.scale = 0.125;
  return p;
}

TEST(GsaGlaPasses, ThePassesAreGlaProblems) {
  const Problem p = gsa_problem(2, 100, 3, 128, 64);
  const Problem first = first_pass(p), second = second_pass(p);
  EXPECT_EQ(first.K, 128);
  EXPECT_EQ(first.V, 64);  // Hk: keys by slots
  EXPECT_EQ(first.scale, 0.125);
  EXPECT_EQ(second.K, 64);  // Hv: slots by values
  EXPECT_EQ(second.V, 128);
  EXPECT_EQ(second.scale, 1.0);
}

TEST(GsaGlaPasses, TheBackwardTakesPassOneTransposed) {
  const Problem p = gsa_problem(2, 100, 3, 128, 64);
  const Problem transposed = first_pass_transposed(p);
  EXPECT_EQ(transposed.K, 64);  // Hk^T: slots by keys, the decay on its rows as gla's is
  EXPECT_EQ(transposed.V, 128);
  EXPECT_EQ(transposed.scale, 0.125) << "dq = scale Hk dz";
  EXPECT_EQ(transposed.T, p.T);
}

TEST(GsaGlaPasses, SegmentsOnlyWhereTheScansLeaveSchedulersIdle) {
  // few heads: each scan about one warp a scheduler
  EXPECT_EQ(segments(gsa_problem(1, 24576, 16, 64, 64), kH100Schedulers), kMaxSegments);
  // 64 heads of D = 64: two warps a scheduler each
  EXPECT_EQ(segments(gsa_problem(4, 4096, 16, 64, 64), kH100Schedulers), 4);
  EXPECT_EQ(segments(gsa_problem(4, 4096, 16, 128, 64), kH100Schedulers), 1) << "three warps a scheduler";
  EXPECT_EQ(segments(gsa_problem(1, 8192, 128, 64, 64), kH100Schedulers), 1) << "many heads";
  EXPECT_EQ(segments(gsa_problem(8, 1024, 8, 64, 64), kH100Schedulers), 4) << "four of 256 tokens";
  EXPECT_EQ(segments(gsa_problem(1, 3000, 16, 64, 64), kH100Schedulers), 4) << "four of about 750";
  EXPECT_EQ(segments(gsa_problem(8, 1000, 8, 64, 64), kH100Schedulers), 1) << "too short to pipeline";
}

// Pass 2 saves its states transposed only where each pass's blocks have SMs of their own in a pipelined
// forward (there its column stores set the forward's pace; elsewhere the backward's transpose back costs
// more): the few-heads peer shape and the battery's segments case, not the many-heads ones.
TEST(GsaGlaPasses, PassTwoSavesTransposedWhereThePassesHaveSmsOfTheirOwn) {
  constexpr int kH100Multiprocessors = 132;
  const Problem few_heads = gsa_problem(1, 24576, 16, 64, 64);
  for (const Problem& pass : {first_pass(few_heads), second_pass(few_heads)})
    EXPECT_EQ(launched_blocks(pipelined_geometry(pass_geometry(pass, kH100Schedulers))), 64);
  EXPECT_TRUE(values_saved_transposed(few_heads, kH100Multiprocessors));
  EXPECT_TRUE(values_saved_transposed(gsa_problem(2, 4100, 2, 64, 64), kH100Multiprocessors))
      << "the battery's segments case reaches the transposed stores";
  EXPECT_FALSE(values_saved_transposed(few_heads, 100)) << "128 blocks on 100 SMs share them";
  EXPECT_FALSE(values_saved_transposed(gsa_problem(8, 1024, 8, 64, 64), kH100Multiprocessors));
  EXPECT_FALSE(values_saved_transposed(gsa_problem(4, 4096, 16, 64, 64), kH100Multiprocessors));
  EXPECT_FALSE(values_saved_transposed(gsa_problem(8, 1000, 8, 64, 64), kH100Multiprocessors))
      << "one pass after the other";
}

// The segment counts segments() gives a sequence of T >= kMinSegments x kMinSegmentTokens tokens: up to
// T / kSegmentTokens, or kMinSegments (each kMinSegmentTokens or more), so rounding up to whole chunks never
// empties one.
int most_segments(std::int64_t T) {
  return int(std::min<std::int64_t>(kMaxSegments, std::max<std::int64_t>(kMinSegments, T / kSegmentTokens)));
}

TEST(GsaGlaPasses, PipelinedPassesAtFourKeysTakeHalfTheBlocks) {
  // 1,24576,16,64: each pass at 4 keys a lane, 128 blocks of 4 warps alone; pipelined, 64 of 8 a pass
  const Problem p = gsa_problem(1, 24576, 16, 64, 64);
  const auto layout = [](const Problem& pass) {
    return fused::make_geometry(pass.B, pass.T, pass.H, pass.K, pass.V, pass.scale, fused::kChunk,
                                kH100Schedulers, true);
  };
  for (const Problem& pass : {first_pass(p), second_pass(p)}) {
    const fused::Geometry alone = layout(pass);
    ASSERT_EQ(alone.KPT, 4);
    const fused::Geometry pipelined = pipelined_geometry(alone);
    EXPECT_EQ(pipelined.W, 8);
    EXPECT_EQ(pipelined.V / pipelined.block_columns() * 2, alone.V / alone.block_columns());
    EXPECT_EQ(1 << pipelined.column_shift, pipelined.block_columns());
  }
  // many heads: 8 keys a lane, as gla's layout
  const fused::Geometry many = layout(first_pass(gsa_problem(8, 1024, 8, 64, 64)));
  ASSERT_EQ(many.KPT, 8);
  EXPECT_EQ(pipelined_geometry(many).W, many.W);
}

TEST(GsaGlaPasses, SegmentsCoverTheSequenceInWholeWideChunks) {
  for (std::int64_t T : {1024, 1100, 3000, 4096, 5000, 24576, 24577, 65536})
    for (int n = 2; n <= most_segments(T); ++n) {
      const int tokens = segment_tokens(T, n);
      SCOPED_TRACE(testing::Message() << "T=" << T << " n=" << n << " tokens=" << tokens);
      EXPECT_EQ(tokens % fused::kWideChunk, 0);
      EXPECT_EQ(tokens % fused::kChunk, 0) << "pass 2's checkpoints of a segment start at a whole chunk";
      EXPECT_GE(std::int64_t(tokens) * n, T);
      EXPECT_LT(std::int64_t(tokens) * (n - 1), T) << "no segment is empty";
    }
}

// The forward's tail (gla_passes.cuh, Tail) reads pass 2's checkpoints of every segment but the last two: a
// segment boundary, whole chunks of the chunk variant's 32 tokens, and none where there are under three
// segments or none.
TEST(GsaGlaPasses, TheTailReadsAllButTheLastTwoSegments) {
  const Problem few_heads = gsa_problem(1, 24576, 16, 64, 64);
  EXPECT_EQ(tail_values_tokens(few_heads, kH100Schedulers), 24576 - 2 * 1536);  // 16 segments of 1536
  EXPECT_EQ(tail_values_tokens(gsa_problem(2, 4100, 2, 64, 64), kH100Schedulers), 2 * 1056);  // the battery's
  EXPECT_EQ(tail_values_tokens(gsa_problem(1, 8192, 128, 64, 64), kH100Schedulers), 0) << "one segment";
  EXPECT_EQ(tail_values_tokens(gsa_problem(8, 1000, 8, 64, 64), kH100Schedulers), 0) << "one segment";
  for (std::int64_t T : {1024, 1100, 3000, 4096, 5000, 24576, 24577, 65536}) {
    const Problem p = gsa_problem(1, T, 2, 64, 64);
    const int n = segments(p, kH100Schedulers), tokens = segment_tokens(T, n);
    const std::int64_t tail = tail_values_tokens(p, kH100Schedulers);
    SCOPED_TRACE(testing::Message() << "T=" << T << " n=" << n);
    EXPECT_EQ(tail % tokens, 0);
    EXPECT_EQ(tail % 32, 0);
    if (tail > 0) {  // the last two segments left out, the last one possibly short
      EXPECT_GT(T - tail, tokens);
      EXPECT_LE(T - tail, 2 * tokens);
    } else {
      EXPECT_LE(T, 2 * tokens) << "three segments or more, yet no tail";
    }
  }
}

// A forward saving for the chunk variant's backward (kernels/gsa/fused_recurrent.cu, InChunks) keeps one
// checkpoint a chunk, packed: as many as that variant has chunks, each segment's first at its chunk's index.
TEST(GsaGlaPasses, PackedCheckpointsAreTheChunksStatesAndSegmentsStartAtOne) {
  EXPECT_EQ(CheckpointPlan{}.per_sequence(100), 7) << "unpacked: every 16 tokens' checkpoint";
  EXPECT_EQ(CheckpointPlan{}.first(96), 6);
  for (int chunk : {16, 32}) {
    const CheckpointPlan plan{chunk / fused::kChunk};
    for (std::int64_t T : {1, 15, 16, 17, 31, 32, 33, 63, 4096, 24577})
      EXPECT_EQ(plan.per_sequence(T), (T + chunk - 1) / chunk) << "chunk=" << chunk << " T=" << T;
    for (std::int64_t T : {1024, 1100, 4096, 5000, 24576, 24577})
      for (int n = 2; n <= most_segments(T); ++n) {
        const int tokens = segment_tokens(T, n);
        for (std::int64_t t0 = 0; t0 < T; t0 += tokens) {
          SCOPED_TRACE(testing::Message() << "chunk=" << chunk << " T=" << T << " n=" << n << " t0=" << t0);
          EXPECT_EQ(t0 % chunk, 0) << "a segment starting inside a chunk would save no state before it";
          EXPECT_EQ(plan.first(t0), t0 / chunk);
        }
      }
  }
}

TEST(GsaGlaPasses, TheBackwardIsPipelinedWhereSequencesAreLong) {
  // about 512 tokens a segment at every head count (64, 128 and 256 heads measured), at least four
  EXPECT_EQ(backward_segments(gsa_problem(8, 1024, 8, 64, 64)), 4);
  EXPECT_EQ(backward_segments(gsa_problem(4, 4096, 16, 64, 64)), 8);
  EXPECT_EQ(backward_segments(gsa_problem(4, 4096, 16, 128, 64)), 8);
  EXPECT_EQ(backward_segments(gsa_problem(1, 8192, 128, 64, 64)), 16);
  EXPECT_EQ(backward_segments(gsa_problem(1, 24576, 16, 64, 64)), kMaxSegments);
  EXPECT_EQ(backward_segments(gsa_problem(2, 1023, 16, 64, 64)), 1) << "segments under 256 tokens";
  EXPECT_EQ(backward_segments(gsa_problem(2, 65, 2, 64, 64)), 1);
}

// The backward hands one state a segment boundary to the segment before (FusedWorkspace::kGlaHandoffs of
// each), and no segment of its split is empty.
TEST(GsaGlaPasses, BackwardSegmentsCoverTheSequenceAndFitTheirHandoffs) {
  for (std::int64_t T = 1; T <= 40000; T += 37) {
    const int n = backward_segments(gsa_problem(1, T, 2, 64, 64));
    ASSERT_GE(n, 1);
    ASSERT_LE(n - 1, FusedWorkspace::kGlaHandoffs) << "T=" << T;
    if (n == 1) continue;
    const fused::SegmentPlan plan = fused::backward_plan(T, n);
    ASSERT_LE(plan.count - 1, FusedWorkspace::kGlaHandoffs) << "T=" << T;
    EXPECT_EQ(plan.start[plan.count], T) << "T=" << T;
    for (int i = 0; i < plan.count; ++i) {
      EXPECT_EQ(plan.start[i] % fused::kChunk, 0) << "T=" << T << ": the dq forward's checkpoint";
      EXPECT_GT(plan.tokens(i), 0) << "T=" << T << ": an empty segment";
    }
  }
}

TEST(GsaGlaPasses, HandedOnStatesFitTheBackwardsRoom) {
  for (std::int64_t B : {1, 4})
    for (std::int64_t H : {1, 4, 16})
      for (std::int64_t D : {16, 32, 64, 128, 256})
        for (std::int64_t M : {32, 64, 128})
          for (std::int64_t T : {kMinSegments * kSegmentTokens, 24576}) {
            const Problem p = gsa_problem(B, T, H, D, M);
            const FusedWorkspace w(p);
            const std::int64_t needed = 2 * p.B * (p.H * p.K * p.M + p.H * p.M * p.V);
            EXPECT_GE(std::int64_t(w.total - w.gla_backward), needed)
                << "B=" << B << " H=" << H << " D=" << D << " M=" << M << " T=" << T;
          }
}

}  // namespace
}  // namespace flabench::gsa::gla_passes
