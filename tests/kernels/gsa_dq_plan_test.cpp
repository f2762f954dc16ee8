// Where gsa's chunked backward makes dq (kernels/gsa/chunk_backward.cuh, dq_in_value_grads): in pass 1's
// value gradients wherever they build the scores whole in a room that fits, else in an output pass of its
// own. Both paths stay reachable, and the battery reaches both, on the rooms it plans for.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernels/gsa/gsa.h"
#include "kernels/registry.h"
#include "suites/battery.h"

namespace flabench {
namespace {

constexpr DeviceLimits kHopper{227 * 1024, 90};

// The peer shapes' backward (chunks of 32, M = 64) folds dq in every dtype on a Hopper; chunks of 64 at
// M = 128, whose value gradients build the scores a key tile at a time, take the dq pass.
TEST(GsaDqPlan, ThePeerShapesFoldDqAndTiledScoresTakeTheDqPass) {
  for (DType dtype : {DType::bf16, DType::fp16, DType::fp32})
    for (int K : {64, 128}) {
      Problem peer{4, 4096, 16, K, K, dtype};
      peer.M = 64, peer.chunk_size = 32;
      EXPECT_TRUE(gsa_dq_in_value_grads(peer, kHopper)) << dtype_name(dtype) << " K=" << K;
      Problem tiled = peer;
      tiled.M = 128, tiled.chunk_size = 64;
      EXPECT_FALSE(gsa_dq_in_value_grads(tiled, kHopper)) << dtype_name(dtype) << " K=" << K;
    }
}

// The battery's chunk-form backwards (the chunk variant's at its chunk size, fused_recurrent's in chunks of
// gsa_chunked_backward().chunk) reach both ways of making dq, on the rooms each case plans for.
TEST(GsaDqPlan, TheBatteryReachesBothWaysOfMakingDq) {
  const BatterySpec spec{"^[a-z]+/gsa/(chunk|fused_recurrent)/fwdbwd/", Backend::cuda, kHopper, false};
  std::set<std::string> folded, dq_pass;
  for (const BatteryCase& c : battery_cases(product_registry(), spec)) {
    if (c.skip_reason || c.second) continue;
    const DeviceLimits device = planned_limits(c, kHopper);
    Problem p = c.problem;
    if (c.variant->name == "fused_recurrent") {
      if (!gsa_fused_takes_gla_passes(p, c.mode, device) || !gsa_fused_backward_in_chunks(p, device))
        continue;
      p.chunk_size = gsa_chunked_backward().chunk;
    }
    const std::string at = c.variant->name + " C" + std::to_string(p.chunk_size) + " M" + std::to_string(p.M);
    (gsa_dq_in_value_grads(p, device) ? folded : dq_pass).insert(at);
  }
  EXPECT_TRUE(folded.contains("fused_recurrent C32 M64")) << "the fused fwd+bwd's usual shapes";
  EXPECT_TRUE(folded.contains("chunk C32 M64"));
  EXPECT_FALSE(dq_pass.empty()) << "the dq pass is still checked on a GPU";
}

}  // namespace
}  // namespace flabench
