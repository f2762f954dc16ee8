// gla's and rwkv6's fused chunk forward on Hopper (kernels/common/chunk/per_key_fused_forward.cu): its
// shared-memory plan (every tile on the swizzle's 1024-byte pattern, no overlaps, within an H100's 227 KiB),
// and where it runs. The kernel itself runs in the GPU battery (gla/chunk and rwkv6/chunk bf16 forwards at
// C = 64).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/chunk/per_key_fused_forward.h"
#include "kernels/common/chunk/per_key_fused_layout.h"
#include "kernels/gla/gla.h"
#include "kernels/rwkv6/rwkv6.h"
#include "suites/battery.h"
#include "tests/kernels/workspace_regions.h"
#include "tests/test_support.h"

namespace flabench::chunk {
namespace {

constexpr std::size_t kH100SharedBytes = 227 * 1024;

TEST(PerKeyFusedLayout, TilesStartOnTheSwizzlePatternAndDoNotOverlap) {
  for (int K : {64, 128})
    for (int Vs : {32, 64}) {
      const PerKeyFusedLayout L{K, Vs};
      std::vector<testing::Region> regions;
      for (int s = 0; s < kFusedStages; ++s) {
        for (int part = 0; part < 2; ++part) {
          regions.push_back({L.queries(s, part), L.token_tile(K)});
          regions.push_back({L.keys(s, part), L.token_tile(K)});
        }
        regions.push_back({L.values(s), L.token_tile(Vs)});
        regions.push_back({L.tables(s), PerKeyTables{K}.bytes()});
      }
      for (int part = 0; part < 2; ++part) regions.push_back({L.state(part), L.state_tile()});
      regions.push_back({L.bonus_weights(), unsigned(K) * sizeof(float)});
      std::sort(regions.begin(), regions.end(), [](auto x, auto y) { return x.at < y.at; });
      SCOPED_TRACE("K " + std::to_string(K) + " Vs " + std::to_string(Vs));
      EXPECT_LE(testing::expect_in_order(regions, wgmma::kGroupBytes) + wgmma::kGroupBytes, L.bytes());
      // only the dispatched keys must fit (at K = 128 three stages do not: a version there needs fewer)
      if (K == kFusedKeys) {
        EXPECT_LE(L.bytes(), kH100SharedBytes) << "K " << K << " Vs " << Vs;
      }
    }
}

// The copies land in the prepared tiles' room (the layout's header): the raw rows and log decays are token
// tiles of K bf16 values, the size of one part.
TEST(PerKeyFusedLayout, TheTablesHoldEveryRowTheLoadsWrite) {
  for (int K : {64, 128}) {
    const PerKeyTables tables{K};
    EXPECT_EQ(int(PerKeyTables::rows), 4 * kFusedSubs + 3 + 1 + 1);
    EXPECT_GE(K, kFusedChunk) << "the bonus row holds a chunk's tokens";
    EXPECT_EQ(tables.bytes(), unsigned(PerKeyTables::rows * K + kFusedSubs * (2 + K)) * sizeof(float));
    // a warp's list of steep channels, one per 64 of them, in a place of its own
    EXPECT_EQ(PerKeyTables::kListParts * PerKeyTables::kListStride, 128);
  }
}

TEST(PerKeyFusedLayout, RunsOnlyWhereItsKernelApplies) {
  const DeviceLimits h100{kH100SharedBytes, 90, 132};
  Problem p = testing::small_problem(testing::op_named("gla"), 4, 4096, 16, 64, 64, DType::bf16);
  p.chunk_size = 64;
  if (!per_key_fused_forward_runs(GlaForm::value, p, h100)) GTEST_SKIP() << "this build has no sm_90a code";
  EXPECT_TRUE(per_key_fused_forward_runs(Rwkv6Form::value, p, h100));
  RecurrenceForm scalar = GlaForm::value;
  scalar.gate = GateKind::per_head;
  EXPECT_FALSE(per_key_fused_forward_runs(scalar, p, h100)) << "simple_gla has its own";
  RecurrenceForm exclusive_only = GlaForm::value;
  exclusive_only.output_before_update = true;
  EXPECT_FALSE(per_key_fused_forward_runs(exclusive_only, p, h100)) << "no such op";
  Problem q = p;
  q.K = q.V = 128;
  EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, q, h100)) << "K = 128 measured slower";
  q = p;
  q.B = 1, q.T = 24576;
  EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, q, h100)) << "32 blocks: less than half the GPU";
  q.B = 3;
  EXPECT_TRUE(per_key_fused_forward_runs(GlaForm::value, q, h100)) << "96 blocks";
  for (int C : {16, 32}) {
    q = p;
    q.chunk_size = C;
    EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, q, h100)) << "C " << C;
  }
  for (DType dtype : {DType::fp16, DType::fp32}) {
    q = p;
    q.dtype = dtype;
    EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, q, h100)) << dtype_name(dtype);
  }
  q = p;
  q.K = 32;
  EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, q, h100));
  q = p;
  q.V = 48;
  EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, q, h100));
  EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, p, DeviceLimits{kH100SharedBytes, 89, 60}));
  EXPECT_FALSE(per_key_fused_forward_runs(GlaForm::value, p, DeviceLimits{99 * 1024, 90, 132}));
}

// On an H100 or H200 (132 SMs) the battery runs each of the kernel's two instances (K 64 with 32 or 64 values
// a block) over more than one chunk in gla's and rwkv6's forward-alone cases, and decays steep enough for the
// diagonal's element-by-element channels.
TEST(PerKeyFusedLayout, TheBatteryRunsEveryInstanceOverSeveralChunks) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  for (const auto& [op, form] :
       {std::pair{std::string("gla"), GlaForm::value}, std::pair{std::string("rwkv6"), Rwkv6Form::value}}) {
    Problem probe = testing::small_problem(testing::op_named(op), 8, 130, 16, 64, 64, DType::bf16);
    probe.chunk_size = kFusedChunk;
    if (!per_key_fused_forward_runs(form, probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
    std::set<int> reached;  // Vs over two chunks or more
    bool steep = false;
    for (const BatteryCase& c :
         battery_cases(product_registry(), {"/" + op + "/chunk/fwd/bf16/", Backend::cuda, hopper, false})) {
      const Problem& p = c.problem;
      if (c.skip_reason || c.shared_memory_cap != 0 || !per_key_fused_forward_runs(form, p, hopper)) continue;
      if (c.decay == DecayScenario::floor) steep = true;  // 16 tokens at the floor: steep channels
      if (p.T > kFusedChunk)
        reached.insert(fused_value_slice(int(p.B * p.H), int(p.V), hopper.multiprocessors));
    }
    EXPECT_EQ(reached, (std::set<int>{32, 64})) << op;
    EXPECT_TRUE(steep) << op;
  }
}

}  // namespace
}  // namespace flabench::chunk
