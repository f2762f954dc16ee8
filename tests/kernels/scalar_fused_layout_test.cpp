// simple_gla's fused chunk forward on Hopper (kernels/simple_gla/chunk_fused_forward.cu): its shared-memory
// plan (every tile on the swizzle's 1024-byte pattern, no overlaps, within an H100's 227 KiB), its value
// slices and where it runs. The kernel itself runs in the GPU battery (simple_gla/chunk bf16 at C = 64).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/common/chunk/workspace.cuh"
#include "kernels/simple_gla/chunk_fused_forward.h"
#include "kernels/simple_gla/chunk_fused_layout.h"
#include "suites/battery.h"
#include "tests/kernels/workspace_regions.h"
#include "tests/test_support.h"

namespace flabench::chunk {
namespace {

constexpr std::size_t kH100SharedBytes = 227 * 1024;

TEST(ScalarFusedLayout, TilesStartOnTheSwizzlePatternAndDoNotOverlap) {
  for (int K : {64, 128})
    for (int Vs : {32, 64})
      for (bool final_apart : {false, true})   // (the backward's dk pass: the final state's gradient apart)
        for (bool dot_rows : {false, true}) {  // (dq's and dk's: the dots' rows beside v's)
          const FusedLayout L = fused_layout(K, Vs, fused_output_groups(Vs), final_apart, dot_rows);
          if (dot_rows && L.bytes() > kH100SharedBytes) continue;  // (fused_pass_layout's test below)
          std::vector<testing::Region> regions;
          // a state buffer for each outputs warpgroup, side by side in one panel; two warpgroups read two
          // chunks at once
          EXPECT_EQ(L.buffers, Vs == 32 ? 2 : 1);
          EXPECT_EQ(L.stages, L.buffers + 2);
          EXPECT_LE(L.stages, kMaxFusedStages);
          for (int s = 0; s < L.stages; ++s) {
            regions.push_back({L.q(s), L.token_tile(K)});
            regions.push_back({L.k(s), L.token_tile(K)});
            // v's columns, then the dots' rows' columns, in one tile
            regions.push_back({L.v(s), L.values_tile()});
            EXPECT_EQ(L.dot_rows_column(), Vs);
            EXPECT_EQ(L.values_tile(), L.token_tile(dot_rows ? 2 * Vs : Vs));
            // the chunk's decays and, after them, its decay to the sequence's end (final_apart's)
            regions.push_back({L.decays(s), sizeof(float) * (scalar_decay_floats(kFusedChunk) + 1)});
            EXPECT_EQ(L.decay_to_last(s), L.decays(s) + sizeof(float) * scalar_decay_floats(kFusedChunk));
          }
          EXPECT_LE(L.state_column(L.buffers - 1) + Vs, wgmma::kPanelColumns);
          for (int part = 0; part < 2; ++part) regions.push_back({L.state(part), L.state_tile()});
          // the decayed values' high and low parts side by side
          regions.push_back({L.decayed_values(), L.token_tile(2 * Vs)});
          EXPECT_EQ(L.decayed_column(1), Vs);
          if (final_apart) {
            regions.push_back({L.final_state(), wgmma::Tile{K}.bytes(2 * Vs)});
          }
          std::sort(regions.begin(), regions.end(), [](auto x, auto y) { return x.at < y.at; });
          SCOPED_TRACE("K " + std::to_string(K) + " Vs " + std::to_string(Vs) +
                       (final_apart ? " final apart" : "") + (dot_rows ? " dot rows" : ""));
          EXPECT_LE(testing::expect_in_order(regions, wgmma::kGroupBytes) + wgmma::kGroupBytes, L.bytes());
          EXPECT_LE(L.bytes(), kH100SharedBytes) << "K " << K << " Vs " << Vs;
          EXPECT_EQ(L.state_tile(), unsigned(K) * wgmma::kRowBytes);  // K rows of one 64-column panel
        }
}

// dq's and dk's passes stage their dots' rows wherever the block still fits an sm_90 block: at 32 values a
// block in the half of v's panel that v leaves empty (no room added), at 64 in a panel of their own, which
// dk's pass at K = 128 has no room for (it reads them from memory).
TEST(ScalarFusedLayout, ThePassesWithDotsStageTheirRowsWhereTheyFit) {
  for (int K : {64, 128})
    for (int Vs : {32, 64})
      for (bool final_apart : {false, true}) {
        const int groups = fused_output_groups(Vs);
        const FusedLayout L = fused_pass_layout(K, Vs, groups, final_apart, true);
        const bool room_for_rows = !(K == 128 && Vs == 64 && final_apart);
        EXPECT_EQ(L.dot_rows, room_for_rows) << "K " << K << " Vs " << Vs << " final apart " << final_apart;
        EXPECT_LE(L.bytes(), kH100SharedBytes);
        if (Vs == 32) {  // (in v's panel: no room added)
          EXPECT_EQ(L.bytes(), fused_layout(K, Vs, groups, final_apart).bytes());
        }
        EXPECT_FALSE(fused_pass_layout(K, Vs, groups, final_apart, false).dot_rows);  // the forward's
      }
}

TEST(ScalarFusedLayout, SlicesOf32ValuesWhereSlicesOf64WouldLeaveHalfTheGpuIdle) {
  EXPECT_EQ(fused_value_slice(32, 128, 132), 32);  // 2,16384,16,128: 64 blocks of 64 -> 128 of 32
  EXPECT_EQ(fused_value_slice(64, 128, 132), 64);  // 4,4096,16,128: 128 blocks of 64
  EXPECT_EQ(fused_value_slice(64, 64, 132), 32);   // 4,4096,16,64 and 8,1024,8,64
  EXPECT_EQ(fused_value_slice(128, 64, 132), 64);
  EXPECT_EQ(fused_value_slice(256, 96, 132), 32);  // V not a multiple of 64
}

// The backward's gate scan (chunk_gate_grads.cu) is built for a token's dots in 1, 2 or 4 partial rows, one a
// value slice of dq's and dk's passes (K / Vs, the pass's values being the problem's keys): every slicing the
// passes may take is one of those.
TEST(ScalarFusedLayout, TheDotsComeInOneTwoOrFourSlices) {
  for (int K : {64, 128})
    for (int heads = 1; heads <= 1024; ++heads)
      for (int multiprocessors : {60, 108, 132}) {
        const int slices = fused_dot_slices(heads, K, multiprocessors);
        EXPECT_TRUE(slices == 1 || slices == 2 || slices == 4)
            << "K " << K << ", " << heads << " heads, " << multiprocessors << " SMs: " << slices;
      }
}

// The passes keep their three arrays of dots in the workspace's state gradients (no state is saved where
// they run): at the most slices (K / 32), over every length and at every K and V they take, they fit.
TEST(ScalarFusedLayout, TheDotsFitTheStateGradientsRoom) {
  for (int K : {64, 128})
    for (int V : {64, 128})
      for (std::int64_t T : {1, 63, 64, 65, 130, 1100, 4096}) {
        const Problem p{1, T, 1, K, V, DType::bf16, kFusedChunk};
        std::vector<std::byte> bytes(workspace_bytes(p));
        const Workspace ws = carve_workspace(bytes, p);
        const std::int64_t most = 3 * (K / 32) * T;
        EXPECT_LE(most, ws.du_partial - ws.dstates) << "K " << K << " V " << V << " T " << T;
      }
}

TEST(ScalarFusedLayout, RunsOnlyWhereItsKernelApplies) {
  const OpSpec& op = testing::op_named("simple_gla");
  const DeviceLimits h100{kH100SharedBytes, 90, 132};
  Problem p = testing::small_problem(op, 2, 16384, 16, 128, 128, DType::bf16);
  p.chunk_size = 64;
  if (!simple_gla_fused_forward_runs(p, h100)) GTEST_SKIP() << "this build has no sm_90a code";
  Problem q = p;
  q.B = 4, q.K = q.V = 64;  // 128 blocks of 32 values (at B = 2, 64: fused_blocks_fill's test below)
  EXPECT_TRUE(simple_gla_fused_forward_runs(q, h100));
  for (int C : {16, 32}) {
    q = p;
    q.chunk_size = C;
    EXPECT_FALSE(simple_gla_fused_forward_runs(q, h100)) << "C " << C;
  }
  for (DType dtype : {DType::fp16, DType::fp32}) {
    q = p;
    q.dtype = dtype;
    EXPECT_FALSE(simple_gla_fused_forward_runs(q, h100)) << dtype_name(dtype);
  }
  q = p;
  q.K = 32;
  EXPECT_FALSE(simple_gla_fused_forward_runs(q, h100));
  q = p;
  q.V = 48;
  EXPECT_FALSE(simple_gla_fused_forward_runs(q, h100));
  EXPECT_FALSE(simple_gla_fused_forward_runs(p, DeviceLimits{kH100SharedBytes, 89, 60}));  // an RTX 40xx
  EXPECT_FALSE(simple_gla_fused_forward_runs(p, DeviceLimits{99 * 1024, 90, 132}));        // under a cap
}

TEST(ScalarFusedLayout, RunsWhereItsBlocksFillMoreThanHalfTheGpuOrTheSequenceSplits) {
  const DeviceLimits h100{kH100SharedBytes, 90, 132};
  Problem p = testing::small_problem(testing::op_named("simple_gla"), 1, 24576, 16, 64, 64, DType::bf16);
  p.chunk_size = kFusedChunk;
  Problem many = p;
  many.B = 8;
  if (!simple_gla_fused_forward_runs(many, h100)) GTEST_SKIP() << "this build has no sm_90a code";
  EXPECT_TRUE(simple_gla_fused_kernel_fills(many, h100));
  // 1,24576,16,64: 32 blocks of 32 values over 384 chunks: four segments of 96 (128 blocks), their start
  // states from six runs of 48 chunks (384 scan blocks, about three an SM)
  EXPECT_FALSE(simple_gla_fused_kernel_fills(p, h100));
  EXPECT_TRUE(simple_gla_fused_forward_runs(p, h100));
  const FusedSegments split = fused_forward_segments(p, h100.multiprocessors);
  EXPECT_EQ(split.count, 4);
  EXPECT_EQ(split.chunks, 96);
  EXPECT_EQ(split.runs, 2);
  EXPECT_EQ(split.run_chunks, 48);
  EXPECT_TRUE(fused_blocks_fill(67, 132));
  EXPECT_FALSE(fused_blocks_fill(66, 132));
  p.B = 2;  // 64 blocks of 32 values: two segments
  EXPECT_FALSE(simple_gla_fused_kernel_fills(p, h100));
  EXPECT_EQ(fused_forward_segments(p, h100.multiprocessors).count, 2);
  EXPECT_TRUE(simple_gla_fused_forward_runs(p, h100));
  p.B = 3;  // 96: one
  EXPECT_TRUE(simple_gla_fused_kernel_fills(p, h100));
  EXPECT_EQ(fused_forward_segments(p, h100.multiprocessors).count, 1);
  p.B = 1, p.T = 15 * kFusedChunk;  // too few chunks for two segments of kMinSegmentChunks
  EXPECT_EQ(fused_forward_segments(p, h100.multiprocessors).count, 1);
  EXPECT_FALSE(simple_gla_fused_forward_runs(p, h100));
}

// On an H100 or H200 (132 SMs) the battery runs each of the kernel's four instances (K 64 or 128, 32 or 64
// values a block) over more than one chunk, forward alone and before a backward (whose passes run the same
// kernel, some in reverse from the last chunk: over two chunks and over many, too), and its two outputs
// warpgroups over odd and even chunk counts.
TEST(ScalarFusedLayout, TheBatteryRunsEveryInstanceOverSeveralChunks) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  const Problem probe = [] {
    Problem p = testing::small_problem(testing::op_named("simple_gla"), 8, 130, 16, 64, 64, DType::bf16);
    p.chunk_size = kFusedChunk;
    return p;
  }();
  if (!simple_gla_fused_forward_runs(probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
  std::set<std::tuple<int, int, Mode>> reached;  // (K, Vs, mode) over two chunks or more
  std::set<int> backward_chunks;                 // chunks of the fwd+bwd cases the kernel takes
  std::set<int> two_group_chunks;                // chunks of the cases with two outputs warpgroups
  for (const BatteryCase& c : battery_cases(
           product_registry(), {"/simple_gla/chunk/(fwd|fwdbwd)/bf16/", Backend::cuda, hopper, false})) {
    const Problem& p = c.problem;
    if (c.skip_reason || c.shared_memory_cap != 0 || p.T <= kFusedChunk ||
        !simple_gla_fused_forward_runs(p, hopper))
      continue;
    const int Vs = fused_value_slice(int(p.B * p.H), int(p.V), hopper.multiprocessors),
              chunks = int((p.T + kFusedChunk - 1) / kFusedChunk);
    reached.insert({int(p.K), Vs, c.mode});
    if (c.mode == Mode::fwdbwd) backward_chunks.insert(chunks);
    if (fused_output_groups(Vs) == 2) two_group_chunks.insert(chunks);
  }
  for (const auto& [K, Vs] : {std::pair{64, 32}, std::pair{64, 64}, std::pair{128, 32}, std::pair{128, 64}})
    for (const Mode mode : {Mode::fwd, Mode::fwdbwd})
      EXPECT_TRUE(reached.count({K, Vs, mode})) << "K " << K << " Vs " << Vs << " " << mode_name(mode);
  // the reverse passes' ring from the end over fewer chunks than its stages and over many more
  ASSERT_FALSE(backward_chunks.empty());
  EXPECT_TRUE(backward_chunks.count(2));
  EXPECT_GT(*backward_chunks.rbegin(), 2 * kMaxFusedStages);
  // two outputs warpgroups taking the chunks in turn: the last chunk the second's (an even count) and the
  // first's (odd), and a ring that wraps several times
  const auto odd = [](int n) { return n % 2 == 1; };
  ASSERT_FALSE(two_group_chunks.empty());
  EXPECT_TRUE(std::any_of(two_group_chunks.begin(), two_group_chunks.end(), [&](int n) { return !odd(n); }));
  EXPECT_TRUE(std::any_of(two_group_chunks.begin(), two_group_chunks.end(), odd));
  EXPECT_GT(*two_group_chunks.rbegin(), 2 * kMaxFusedStages);
}

// On an H100 or H200 the battery runs the forward over sequence segments at K = 64 and 128, alone and before
// a backward, with several runs a segment and with a last segment shorter than the others.
TEST(ScalarFusedLayout, TheBatteryRunsTheSequenceSegments) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  Problem probe = testing::small_problem(testing::op_named("simple_gla"), 1, 4100, 16, 64, 64, DType::bf16);
  probe.chunk_size = kFusedChunk;
  if (!simple_gla_fused_forward_runs(probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
  std::set<std::pair<int, Mode>> reached;  // (K, mode) split into segments
  bool several_runs = false, short_last = false;
  for (const BatteryCase& c : battery_cases(
           product_registry(), {"/simple_gla/chunk/(fwd|fwdbwd)/bf16/", Backend::cuda, hopper, false})) {
    const Problem& p = c.problem;
    if (c.skip_reason || c.shared_memory_cap != 0 || simple_gla_fused_kernel_fills(p, hopper) ||
        !simple_gla_fused_forward_runs(p, hopper))
      continue;
    const FusedSegments plan = fused_forward_segments(p, hopper.multiprocessors);
    ASSERT_GT(plan.count, 1);
    reached.insert({int(p.K), c.mode});
    several_runs |= plan.runs > 1;
    short_last |= int((p.T + kFusedChunk - 1) / kFusedChunk) < plan.count * plan.chunks;
  }
  for (int K : {64, 128})
    for (const Mode mode : {Mode::fwd, Mode::fwdbwd})
      EXPECT_TRUE(reached.count({K, mode})) << "K " << K << " " << mode_name(mode);
  EXPECT_TRUE(several_runs);
  EXPECT_TRUE(short_last);
}

// The backward's passes run where the forward takes the problem and its transpose: K and V each 64 or 128.
TEST(ScalarFusedLayout, TheBackwardPassesRunWhereBothOrientationsDo) {
  const DeviceLimits h100{kH100SharedBytes, 90, 132};
  Problem p = testing::small_problem(testing::op_named("simple_gla"), 4, 4096, 16, 128, 128, DType::bf16);
  p.chunk_size = kFusedChunk;
  if (!simple_gla_fused_forward_runs(p, h100)) GTEST_SKIP() << "this build has no sm_90a code";
  EXPECT_TRUE(simple_gla_fused_backward_runs(p, h100));
  Problem q = p;
  q.K = 64;
  EXPECT_TRUE(simple_gla_fused_backward_runs(q, h100)) << "K 64, V 128";
  q.B = 8,
  q.V = 32;  // the forward runs (V a multiple of 32, 128 blocks), dq's and dk's passes would have 32 keys
  EXPECT_TRUE(simple_gla_fused_forward_runs(q, h100));
  EXPECT_FALSE(simple_gla_fused_backward_runs(q, h100));
  q = p;
  q.dtype = DType::fp16;
  EXPECT_FALSE(simple_gla_fused_backward_runs(q, h100));
}

// On an H100 or H200 the battery's fwd+bwd cases run each pass of the backward (dv's in the state's
// orientation, dq's and dk's in its transpose) at each of the kernel's four instances, over several chunks,
// and with K != V both ways, and the gate scan at each of its slicings; and the reverse scan where the passes
// do not run.
TEST(ScalarFusedLayout, TheBatteryRunsTheBackwardPassesAtEveryInstance) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  Problem probe = testing::small_problem(testing::op_named("simple_gla"), 4, 130, 16, 128, 128, DType::bf16);
  probe.chunk_size = kFusedChunk;
  if (!simple_gla_fused_backward_runs(probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
  std::set<std::pair<int, int>> direct, transposed;  // (the pass's keys, its value slice)
  std::set<int> dot_slices;                          // the gate scan's instances
  bool wider_values = false, wider_keys = false, reverse_scan = false;
  for (const BatteryCase& c :
       battery_cases(product_registry(), {"/simple_gla/chunk/fwdbwd/bf16/", Backend::cuda, hopper, false})) {
    const Problem& p = c.problem;
    if (c.skip_reason || c.shared_memory_cap != 0 || p.T <= kFusedChunk) continue;
    // the one-kernel forward saving the states, its reverse scan, where the passes do not run
    reverse_scan |= simple_gla_fused_kernel_fills(p, hopper) && !simple_gla_fused_backward_runs(p, hopper);
    if (!simple_gla_fused_backward_runs(p, hopper)) continue;
    const int heads = int(p.B * p.H);
    direct.insert({int(p.K), fused_value_slice(heads, int(p.V), hopper.multiprocessors)});
    transposed.insert({int(p.V), fused_value_slice(heads, int(p.K), hopper.multiprocessors)});
    dot_slices.insert(fused_dot_slices(heads, int(p.K), hopper.multiprocessors));
    wider_values |= p.V > p.K, wider_keys |= p.K > p.V;
  }
  for (const auto& instance :
       {std::pair{64, 32}, std::pair{64, 64}, std::pair{128, 32}, std::pair{128, 64}}) {
    EXPECT_TRUE(direct.count(instance)) << "dv's pass: K " << instance.first << " Vs " << instance.second;
    EXPECT_TRUE(transposed.count(instance))
        << "dq's and dk's: K " << instance.first << " Vs " << instance.second;
  }
  EXPECT_EQ(dot_slices, (std::set<int>{1, 2, 4}));
  EXPECT_TRUE(wider_values);
  EXPECT_TRUE(wider_keys);
  EXPECT_TRUE(reverse_scan);
}

}  // namespace
}  // namespace flabench::chunk
