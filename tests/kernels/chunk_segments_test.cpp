// The sequence segments of the one-kernel chunk forwards at few heads (kernels/common/chunk/fused_plan.h,
// plan_fused_segments; kernels/common/chunk/segment_starts.h, the fold) and the backward's reverse scan in
// runs (kernels/common/chunk/state_grad_runs.h): where the plans split, that their runs and segments cover
// the sequence within one wave and their scratch fits its room, and that the fold the kernel runs
// (fold_element) turns the scan's runs into the states the chunk-by-chunk scan reaches, forward and, with
// each chunk's run-local state made whole, in reverse.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/chunk/fused_plan.h"
#include "kernels/common/chunk/segment_starts.h"
#include "kernels/common/chunk/state_grad_runs.h"
#include "kernels/common/chunk/workspace.cuh"

namespace flabench::chunk {
namespace {

// Every plan's runs are whole chunks within their segments, cover every segment but the last, leave the
// last segment at least one chunk, fill no more multiprocessors than there are, and fit their scratch in the
// workspace's state gradients.
TEST(ChunkSegments, PlansCoverTheirSegmentsInOneWaveAndFitTheirScratch) {
  int split = 0;
  for (int multiprocessors : {60, 108, 132})
    for (int heads : {1, 2, 3, 8, 16, 33})
      for (int K : {64, 128})
        for (int V : {32, 64, 128})
          for (std::int64_t T : {1, 64, 512, 513, 1100, 4100, 24576}) {
            const Problem p{1, T, heads, K, V, DType::bf16, kFusedChunk};
            const FusedSegments plan = fused_forward_segments(p, multiprocessors);
            const std::string where = "heads " + std::to_string(heads) + " K " + std::to_string(K) + " V " +
                                      std::to_string(V) + " T " + std::to_string(T) + " SMs " +
                                      std::to_string(multiprocessors);
            if (plan.count == 1) continue;
            ++split;
            const int chunks = int((T + kFusedChunk - 1) / kFusedChunk),
                      blocks = heads * V / fused_value_slice(heads, V, multiprocessors);
            EXPECT_FALSE(fused_blocks_fill(blocks, multiprocessors)) << where;
            EXPECT_LE(plan.count * blocks, multiprocessors) << where;
            EXPECT_EQ(plan.chunks, plan.runs * plan.run_chunks) << where;
            EXPECT_GE(plan.run_chunks, kMinSegmentChunks) << where;
            EXPECT_LT((plan.count - 1) * plan.chunks, chunks) << where;  // the last segment has chunks
            EXPECT_GE(plan.count * plan.chunks, chunks) << where;        // and ends the sequence
            // the state gradients: [B H][chunks][K][V] fp32 (workspace.cuh; carved below once)
            EXPECT_LE(segment_scratch(plan, heads, K, V).floats, (long long)heads * chunks * K * V) << where;
          }
  EXPECT_GT(split, 0);
  const Problem p{1, 24576, 16, 64, 64, DType::bf16, kFusedChunk};
  std::vector<std::byte> bytes(workspace_bytes(p));
  const Workspace ws = carve_workspace(bytes, p);
  EXPECT_EQ(ws.du_partial - ws.dstates, 16LL * 384 * 64 * 64);
}

// Two heads of a 3 x 2 state, a decay per key a chunk, over three segments of two runs: the scan's runs from
// zeros (end states and decay products, laid out as segment_scratch says), folded by fold_element for every
// element, give each segment's start state as the chunk-by-chunk scan from the initial state does, every
// segment's state apart (a layout mix-up or a run folded twice would be off by whole updates).
TEST(ChunkSegments, TheFoldGivesTheScansStateAtEverySegmentsStart) {
  const FusedSegments plan{3, 4, 2, 2};
  const int heads = 2, K = 3, V = 2;
  const long long KV = K * V;
  const auto decay = [](int bh, int n, int k) { return 0.4 + 0.5 * ((7 * n + 3 * k + bh) % 5) / 5.0; };
  const auto update = [](int bh, int n, long long e) { return double((5 * n + 3 * e + 11 * bh) % 9) - 4.0; };
  const auto initial = [](int bh, long long e) { return 0.25 * double(e + 1) - bh; };
  const SegmentScratch at = segment_scratch(plan, heads, K, V);
  std::vector<float> scratch(at.floats, -1e30f);  // untouched places would show
  const int runs = segment_runs(plan);
  for (int bh = 0; bh < heads; ++bh)
    for (int run = 0; run < runs; ++run)
      for (long long e = 0; e < KV; ++e) {
        const int k = int(e / V);
        double end = 0, factor = 1;
        for (int n = run * plan.run_chunks; n < (run + 1) * plan.run_chunks; ++n)
          end = decay(bh, n, k) * end + update(bh, n, e), factor *= decay(bh, n, k);
        scratch[at.ends + (bh * runs + run) * KV + e] = float(end);
        scratch[at.decays + (bh * runs + run) * K + k] = float(factor);
      }
  for (int bh = 0; bh < heads; ++bh)
    for (long long e = 0; e < KV; ++e)
      fold_element(scratch.data(), at, plan, bh, e, int(e / V), K, KV, float(initial(bh, e)));
  for (int bh = 0; bh < heads; ++bh)
    for (long long e = 0; e < KV; ++e) {
      double S = initial(bh, e);
      for (int n = 0; n < (plan.count - 1) * plan.chunks; ++n) {
        S = decay(bh, n, int(e / V)) * S + update(bh, n, e);
        if ((n + 1) % plan.chunks == 0) {
          const int segment = (n + 1) / plan.chunks;  // whose start this is
          const float folded = scratch[at.starts + (bh * (plan.count - 1) + segment - 1) * KV + e];
          EXPECT_NEAR(folded, S, 1e-5 * (1 + std::abs(S)))
              << "head " << bh << " element " << e << " segment " << segment;
        }
      }
    }
}

// Every plan of the reverse scan's runs fits one wave of the scan's places, covers the chunks with runs of at
// least kMinSegmentChunks (the last one the rest), and fits its scratch in the room the scalar backward gives
// it; it splits where heads are few (1,24576,16,64 on an H100) and not where one run's blocks fill half
// the places.
TEST(ChunkSegments, StateGradRunsCoverTheChunksInOneWaveAndFitTheirScratch) {
  int split = 0;
  for (int multiprocessors : {60, 108, 132})
    for (int heads : {1, 2, 3, 8, 16, 33, 64})
      for (int K : {64, 128})
        for (int V : {64, 128})
          for (std::int64_t T : {1, 64, 512, 513, 1100, 4100, 24576}) {
            const Problem p{1, T, heads, K, V, DType::bf16, kFusedChunk};
            const int chunks = int((T + kFusedChunk - 1) / kFusedChunk), blocks = scan_blocks(heads, K, V);
            const StateGradRuns plan = plan_state_grad_runs(blocks, chunks, multiprocessors);
            const std::string where = "heads " + std::to_string(heads) + " K " + std::to_string(K) + " V " +
                                      std::to_string(V) + " T " + std::to_string(T) + " SMs " +
                                      std::to_string(multiprocessors);
            if (plan.runs == 1) continue;
            ++split;
            EXPECT_LE(plan.runs * blocks, kScanBlocksPerSm * multiprocessors) << where;
            EXPECT_LE(2 * blocks, kScanBlocksPerSm * multiprocessors) << where;
            EXPECT_GE(plan.run_chunks, kMinSegmentChunks) << where;
            EXPECT_LT((plan.runs - 1) * plan.run_chunks, chunks) << where;  // the last run has chunks
            EXPECT_GE(plan.runs * plan.run_chunks, chunks) << where;
            EXPECT_LE(state_grad_runs_scratch(plan, heads, chunks, K, V).floats,
                      (long long)prepared_keys_room_floats(p))
                << where;
          }
  EXPECT_GT(split, 0);
  EXPECT_GT(plan_state_grad_runs(scan_blocks(16, 64, 64), 384, 132).runs, 1);
  EXPECT_EQ(plan_state_grad_runs(scan_blocks(256, 64, 64), 64, 132).runs, 1);
}

// Two heads of a 3 x 2 state, a decay per key a chunk, 11 chunks in runs of 3 (the last two chunks): the
// reverse scan's runs from zeros (each chunk's saved state and decay factor, the runs' ends and decays, laid
// out as state_grad_runs_scratch says), folded by fold_element from the final state's gradient, and each
// chunk's state made whole as StateGradStarts says, give the chunk-by-chunk reverse scan's state before
// every chunk and its end (the initial state's gradient). A run folded in the wrong order, a factor that
// took the chunk's own decay or a start taken from the neighbouring run would each be off by whole updates.
TEST(ChunkSegments, TheReverseScanInRunsMadeWholeIsTheChunkByChunkScan) {
  const int heads = 2, K = 3, V = 2, chunks = 11;
  const StateGradRuns plan{4, 3};
  const long long KV = K * V;
  const auto decay = [](int bh, int n, int k) { return 0.4 + 0.5 * ((7 * n + 3 * k + bh) % 5) / 5.0; };
  const auto update = [](int bh, int n, long long e) { return double((5 * n + 3 * e + 11 * bh) % 9) - 4.0; };
  const auto final_grad = [](int bh, long long e) { return 0.25 * double(e + 1) - bh; };
  const StateGradRunsScratch at = state_grad_runs_scratch(plan, heads, chunks, K, V);
  std::vector<float> scratch(at.floats, -1e30f), local(heads * chunks * KV, -1e30f), initial(heads * KV);
  for (int bh = 0; bh < heads; ++bh)
    for (long long e = 0; e < KV; ++e) {
      initial[bh * KV + e] = float(final_grad(bh, e));
      const int k = int(e / V);
      for (int run = 0; run < plan.runs; ++run) {  // the scan's block of this run, from zeros
        double S = 0, factor = 1;
        for (int step = run * plan.run_chunks; step < std::min(chunks, (run + 1) * plan.run_chunks); ++step) {
          const int n = chunks - 1 - step;
          ASSERT_EQ(reverse_run_of(n, chunks, plan.run_chunks), run);
          local[(bh * chunks + n) * KV + e] = float(S);
          scratch[at.gammas + (bh * chunks + n) * K + k] = float(factor);
          S = decay(bh, n, k) * S + update(bh, n, e), factor *= decay(bh, n, k);
        }
        scratch[at.fold.ends + (bh * plan.runs + run) * KV + e] = float(S);
        scratch[at.fold.decays + (bh * plan.runs + run) * K + k] = float(factor);
      }
    }
  for (int bh = 0; bh < heads; ++bh)
    for (long long e = 0; e < KV; ++e)
      fold_element(scratch.data(), at.fold, state_grad_fold(plan), bh, e, int(e / V), K, KV,
                   initial[bh * KV + e]);
  const StateGradStarts starts{scratch.data() + at.fold.starts, initial.data(), scratch.data() + at.gammas,
                               plan.runs, plan.run_chunks};
  for (int bh = 0; bh < heads; ++bh)
    for (long long e = 0; e < KV; ++e) {
      const int k = int(e / V);
      double S = final_grad(bh, e);
      for (int n = chunks - 1; n >= 0; --n) {
        const float* start = starts.start_of(bh, n, chunks, KV);
        ASSERT_NE(start, nullptr);
        const double whole =
            local[(bh * chunks + n) * KV + e] + double(starts.gammas[(bh * chunks + n) * K + k]) * start[e];
        EXPECT_NEAR(whole, S, 1e-5 * (1 + std::abs(S)))
            << "head " << bh << " element " << e << " chunk " << n;
        S = decay(bh, n, k) * S + update(bh, n, e);
      }
      const float initial_grad = scratch[at.fold.starts + (bh * plan.runs + plan.runs - 1) * KV + e];
      EXPECT_NEAR(initial_grad, S, 1e-5 * (1 + std::abs(S))) << "head " << bh << " element " << e;
    }
  // without a final state's gradient, run 0 adds nothing
  const StateGradStarts zero_final{starts.starts, nullptr, starts.gammas, plan.runs, plan.run_chunks};
  EXPECT_EQ(zero_final.start_of(0, chunks - 1, chunks, KV), nullptr);
  EXPECT_EQ(StateGradStarts{}.start_of(0, 0, chunks, KV), nullptr);
}

}  // namespace
}  // namespace flabench::chunk
