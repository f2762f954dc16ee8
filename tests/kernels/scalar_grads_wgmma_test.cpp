// simple_gla's gradients kernel on Hopper (kernels/simple_gla/chunk_grads_wgmma.cu): its shared-memory plan,
// where it runs, the battery's reach of it, and every product it issues emulated on the CPU: the token tiles
// and the score tiles' parts stored where the kernel stores them, each product read through the descriptors
// the kernel passes (GradOperands) with the kernel's trans flags, against the same product of plain
// matrices. A wrong tile, block, step or majorness shows here before a GPU runs the kernel; the kernel
// itself runs in the GPU battery (simple_gla/chunk bf16 fwd+bwd at C = 64).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/chunk/state_grad_runs.h"
#include "kernels/simple_gla/chunk_fused_forward.h"
#include "kernels/simple_gla/chunk_grads_wgmma.h"
#include "kernels/simple_gla/chunk_grads_wgmma_layout.h"
#include "suites/battery.h"
#include "tests/kernels/wgmma_emulation.h"
#include "tests/kernels/workspace_regions.h"
#include "tests/test_support.h"

namespace flabench::chunk {
namespace {

using testing::bf16_matrix;
using testing::expect_near;
using testing::Matrix;
using testing::parts;
using testing::product;
using testing::Shared;
using wgmma::kDepth;
using wgmma::kRows;
using wgmma::Tile;

constexpr int C = kFusedChunk;
constexpr std::size_t kH100SharedBytes = 227 * 1024;
const std::pair<int, int> kHeadDims[] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}};

std::string label(int K, int V) {
  return "K" + std::to_string(K) + "_V" + std::to_string(V);
}

TEST(ScalarGradsWgmmaLayout, TilesStartOnTheSwizzlePatternAndDoNotOverlap) {
  for (const auto& [K, V] : kHeadDims) {
    SCOPED_TRACE(label(K, V));
    const GradLayout L{K, V};
    std::vector<testing::Region> tiles;
    for (int stage = 0; stage < kGradStages; ++stage) {
      tiles.push_back({L.q(stage), L.token_tile(K)});
      tiles.push_back({L.k(stage), L.token_tile(K)});
      tiles.push_back({L.v(stage), L.token_tile(V)});
      tiles.push_back({L.d_o(stage), L.token_tile(V)});
    }
    for (int part = 0; part < 2; ++part) tiles.push_back({L.m_part(part), L.score_tile()});
    for (int part = 0; part < 2; ++part) tiles.push_back({L.a_part(part), L.score_tile()});
    const std::size_t tiles_end = testing::expect_in_order(tiles, wgmma::kGroupBytes);
    const std::size_t f = sizeof(float);
    std::vector<testing::Region> rest = {{L.decays(0), f * scalar_decay_floats(C)},
                                         {L.decays(1), f * scalar_decay_floats(C)},
                                         {L.dq_dots(), f * L.key_parts() * C},
                                         {L.dk_dots(), f * L.key_parts() * C},
                                         {L.handed_dots(), f * L.value_parts() * C},
                                         {L.state_dots(), f * GradLayout::kWarps},
                                         {L.diagonal(), f * C}};
    EXPECT_GE(L.decays(0), tiles_end);
    const std::size_t floats_end = testing::expect_in_order(rest, f);
    std::vector<testing::Region> outputs;
    for (int group = 0; group < kGradGroups; ++group) {
      outputs.push_back({L.out(group), L.out_bytes(group)});
      EXPECT_EQ(2 * L.out_ld(group) % 16, 0) << "rows of 16-byte vectors";
    }
    EXPECT_GE(L.out(0), floats_end);
    const std::size_t outputs_end = testing::expect_in_order(outputs, 16);
    std::vector<testing::Region> barriers;
    for (int stage = 0; stage < kGradStages; ++stage)
      barriers.push_back({L.copied(stage), sizeof(std::uint64_t)});
    EXPECT_GE(L.copied(0), outputs_end);
    EXPECT_LE(testing::expect_in_order(barriers, sizeof(std::uint64_t)) + wgmma::kGroupBytes, L.bytes());
    EXPECT_EQ(L.key_parts(), K / 16);  // a part for each warp of each 64-key block
    EXPECT_LE(L.bytes(), kH100SharedBytes);
  }
}

TEST(ScalarGradsWgmmaLayout, RunsOnlyWhereItsKernelApplies) {
  const DeviceLimits h100{kH100SharedBytes, 90, 132};
  Problem p = testing::small_problem(testing::op_named("simple_gla"), 4, 4096, 16, 128, 128, DType::bf16);
  p.chunk_size = kFusedChunk;
  if (!simple_gla_grads_wgmma_runs(p, h100)) GTEST_SKIP() << "this build has no sm_90a code";
  for (const auto& [K, V] : kHeadDims) {
    Problem q = p;
    q.K = K, q.V = V;
    EXPECT_TRUE(simple_gla_grads_wgmma_runs(q, h100)) << label(K, V);
  }
  for (const auto& [K, V] :
       {std::pair{64, 32}, std::pair{32, 64}, std::pair{256, 256}, std::pair{128, 192}}) {
    Problem q = p;
    q.K = K, q.V = V;
    EXPECT_FALSE(simple_gla_grads_wgmma_runs(q, h100)) << label(K, V);
  }
  for (int C : {16, 32}) {
    Problem q = p;
    q.chunk_size = C;
    EXPECT_FALSE(simple_gla_grads_wgmma_runs(q, h100)) << "C " << C;
  }
  for (DType dtype : {DType::fp16, DType::fp32}) {
    Problem q = p;
    q.dtype = dtype;
    EXPECT_FALSE(simple_gla_grads_wgmma_runs(q, h100)) << dtype_name(dtype);
  }
  EXPECT_FALSE(simple_gla_grads_wgmma_runs(p, DeviceLimits{kH100SharedBytes, 80, 108}));  // an A100
  EXPECT_FALSE(simple_gla_grads_wgmma_runs(p, DeviceLimits{99 * 1024, 90, 132}));         // under a cap
}

// On an H100 or H200 the battery runs each of the kernel's four instances in fwd+bwd over more than one
// chunk, and the deepest log decays through one of them.
TEST(ScalarGradsWgmmaLayout, TheBatteryRunsEveryInstance) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  Problem probe = testing::small_problem(testing::op_named("simple_gla"), 1, 130, 2, 64, 64, DType::bf16);
  probe.chunk_size = kFusedChunk;
  if (!simple_gla_grads_wgmma_runs(probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
  std::set<std::pair<int, int>> reached;
  bool deepest = false;
  for (const BatteryCase& c :
       battery_cases(product_registry(), {"/simple_gla/chunk/fwdbwd/bf16/", Backend::cuda, hopper, false})) {
    const Problem& p = c.problem;
    const DeviceLimits limits{c.shared_memory_cap ? c.shared_memory_cap : kH100SharedBytes, 90, 132};
    if (c.skip_reason || p.T <= kFusedChunk || !simple_gla_grads_wgmma_runs(p, limits)) continue;
    reached.insert({int(p.K), int(p.V)});
    deepest = deepest || c.decay == DecayScenario::floor;
  }
  for (const auto& [K, V] : kHeadDims) EXPECT_TRUE(reached.count({K, V})) << label(K, V);
  EXPECT_TRUE(deepest) << "no case at the op's log decay floor";
}

// On an H100 or H200 the battery's fwd+bwd cases reach the reverse scan in runs (state_grad_runs.h) that
// the kernel's run instances make whole, at K = 64 and 128, with several runs and with a last run shorter
// than the others: where neither the fused backward passes nor the fused reverse scan run (few heads); and
// with near-zero log decays, where the runs' starts carry (with typical ones they add nothing measurable).
TEST(ScalarGradsWgmmaLayout, TheBatteryRunsTheReverseScanInRuns) {
  const DeviceLimits hopper{kH100SharedBytes, 90, 132};
  Problem probe = testing::small_problem(testing::op_named("simple_gla"), 1, 4100, 16, 64, 64, DType::bf16);
  probe.chunk_size = kFusedChunk;
  if (!simple_gla_grads_wgmma_runs(probe, hopper)) GTEST_SKIP() << "this build has no sm_90a code";
  std::set<int> reached;  // K
  bool several = false, short_last = false, carried = false;
  for (const BatteryCase& c :
       battery_cases(product_registry(), {"/simple_gla/chunk/fwdbwd/bf16/", Backend::cuda, hopper, false})) {
    const Problem& p = c.problem;
    if (c.skip_reason || c.shared_memory_cap != 0 || !simple_gla_grads_wgmma_runs(p, hopper) ||
        simple_gla_fused_backward_runs(p, hopper) || simple_gla_fused_kernel_fills(p, hopper))
      continue;
    const int chunks = int((p.T + kFusedChunk - 1) / kFusedChunk);
    const StateGradRuns plan =
        plan_state_grad_runs(scan_blocks(int(p.B * p.H), int(p.K), int(p.V)), chunks, hopper.multiprocessors);
    if (plan.runs == 1) continue;
    reached.insert(int(p.K));
    several |= plan.runs > 2;
    short_last |= chunks < plan.runs * plan.run_chunks;
    carried |= c.decay == DecayScenario::near_zero;
  }
  for (int K : {64, 128}) EXPECT_TRUE(reached.count(K)) << "K " << K;
  EXPECT_TRUE(several);
  EXPECT_TRUE(short_last);
  EXPECT_TRUE(carried);
}

// Stores a C x C score matrix's two parts where the kernel's decayed_score_tile stores them: a register
// pair of the 64 x 64 accumulator a 32-bit store at the tile's (row, column).
void store_score_parts(Shared& smem, unsigned high, unsigned low, const Matrix& scores,
                       Matrix& sum_of_parts) {
  const Tile tile{C};
  for (int thread = 0; thread < 128; ++thread)
    for (int r = 0; r < C / 2; r += 2) {
      const wgmma::Element e = wgmma::accumulator_element(thread, r);
      for (int half = 0; half < 2; ++half) {
        const auto [h, l] = parts(scores(e.row, e.column + half));
        sum_of_parts(e.row, e.column + half) = h + l;
        smem.store(high + tile.offset(e.row, e.column) + 2 * half, h);
        smem.store(low + tile.offset(e.row, e.column) + 2 * half, l);
      }
    }
}

// want (64 x N) = rows r0 .. r0 + 63 of X times Y^T (Y's rows the N index), or X's columns c0 .. where
// kColumns.
Matrix times_transposed(const Matrix& X, int first, bool columns_of_x, const Matrix& Y) {
  Matrix want(kRows, Y.rows);
  const int depth = columns_of_x ? X.rows : X.columns;
  for (int m = 0; m < kRows; ++m)
    for (int n = 0; n < Y.rows; ++n)
      for (int k = 0; k < depth; ++k)
        want(m, n) += (columns_of_x ? X(k, first + m) : X(first + m, k)) * Y(n, k);
  return want;
}

Matrix transposed(const Matrix& X) {
  Matrix t(X.columns, X.rows);
  for (int i = 0; i < X.rows; ++i)
    for (int j = 0; j < X.columns; ++j) t(j, i) = X(i, j);
  return t;
}

// Rows first .. first + 63 of X (the register operand of a state product).
Matrix row_block(const Matrix& X, int first) {
  Matrix block(kRows, X.columns);
  for (int m = 0; m < kRows; ++m)
    for (int k = 0; k < X.columns; ++k) block(m, k) = X(first + m, k);
  return block;
}

class ScalarGradsWgmmaProducts : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(ScalarGradsWgmmaProducts, ReadWhatTheKernelStored) {
  const auto [K, V] = GetParam();
  const GradLayout L{K, V};
  const GradOperands at{0};
  const int stage = kGradStages - 1;  // the last, so that a stage's offset counts
  std::mt19937 rng(K + 3 * V);
  Shared smem(L.bytes());
  const Tile tokens{C};

  const Matrix q = bf16_matrix(C, K, rng), k = bf16_matrix(C, K, rng), v = bf16_matrix(C, V, rng),
               d_o = bf16_matrix(C, V, rng);
  for (int t = 0; t < C; ++t) {
    for (int c = 0; c < K; ++c) {
      smem.store(L.q(stage) + tokens.offset(t, c), q(t, c));
      smem.store(L.k(stage) + tokens.offset(t, c), k(t, c));
    }
    for (int c = 0; c < V; ++c) {
      smem.store(L.v(stage) + tokens.offset(t, c), v(t, c));
      smem.store(L.d_o(stage) + tokens.offset(t, c), d_o(t, c));
    }
  }

  // the first products: do v^T (M's) and q k^T (A's), token rows K-major on both sides
  Matrix dA(C, C), scores(C, C);
  for (int step = 0; step < V / kDepth; ++step)
    product(dA, smem, at.rows(L.d_o(stage), step), false, at.rows(L.v(stage), step), false);
  for (int step = 0; step < K / kDepth; ++step)
    product(scores, smem, at.rows(L.q(stage), step), false, at.rows(L.k(stage), step), false);
  expect_near(dA, times_transposed(d_o, 0, false, v), "do v^T");
  expect_near(scores, times_transposed(q, 0, false, k), "q k^T");

  // the score tiles: M and A (any values here) in two parts
  std::normal_distribution<double> normal;
  Matrix M(C, C), A(C, C), M_sum(C, C), A_sum(C, C);
  for (double& x : M.x) x = normal(rng);
  for (double& x : A.x) x = normal(rng);
  store_score_parts(smem, L.m_part(0), L.m_part(1), M, M_sum);
  store_score_parts(smem, L.a_part(0), L.a_part(1), A, A_sum);

  // the states' products, A from registers (S0 or dS, its rows or columns), B token rows K-major
  Matrix S0(K, V), dS(K, V);
  for (double& x : S0.x) x = normal(rng);
  for (double& x : dS.x) x = normal(rng);
  const Matrix dS_transposed = transposed(dS);
  for (int m = 0; m < K / kRows; ++m) {
    SCOPED_TRACE("key block " + std::to_string(m));
    Matrix dq(kRows, C), dk(kRows, C);
    const Matrix S0_rows = row_block(S0, kRows * m), dS_rows = row_block(dS, kRows * m);
    for (int step = 0; step < V / kDepth; ++step) {
      product(dq, smem, S0_rows, step, at.rows(L.d_o(stage), step), false);
      product(dk, smem, dS_rows, step, at.rows(L.v(stage), step), false);
    }
    expect_near(dq, times_transposed(S0, kRows * m, false, d_o), "S0 do^T");
    expect_near(dk, times_transposed(dS, kRows * m, false, v), "dS v^T");

    // the scores' products: A token columns MN-major; B M^T K-major (dq), M MN-major (dk)
    Matrix kM(kRows, C), qM(kRows, C);
    for (int step = 0; step < C / kDepth; ++step)
      for (int part = 0; part < 2; ++part) {
        product(kM, smem, at.columns(L.k(stage), m, step), true, at.rows(L.m_part(part), step), false);
        product(qM, smem, at.columns(L.q(stage), m, step), true, at.columns(L.m_part(part), 0, step), true);
      }
    expect_near(kM, times_transposed(k, kRows * m, true, M_sum), "k^T M^T");
    expect_near(qM, times_transposed(q, kRows * m, true, transposed(M_sum)), "q^T M");
  }
  for (int m = 0; m < V / kRows; ++m) {
    SCOPED_TRACE("value block " + std::to_string(m));
    Matrix dv(kRows, C), doA(kRows, C);
    const Matrix dS_columns = row_block(dS_transposed, kRows * m);
    for (int step = 0; step < K / kDepth; ++step)
      product(dv, smem, dS_columns, step, at.rows(L.k(stage), step), false);
    expect_near(dv, times_transposed(dS_transposed, kRows * m, false, k), "dS^T k^T");
    for (int step = 0; step < C / kDepth; ++step)
      for (int part = 0; part < 2; ++part)
        product(doA, smem, at.columns(L.d_o(stage), m, step), true, at.columns(L.a_part(part), 0, step),
                true);
    expect_near(doA, times_transposed(d_o, kRows * m, true, transposed(A_sum)), "do^T A");
  }
}

INSTANTIATE_TEST_SUITE_P(HeadDims, ScalarGradsWgmmaProducts, ::testing::ValuesIn(kHeadDims),
                         [](const auto& info) { return label(info.param.first, info.param.second); });

}  // namespace
}  // namespace flabench::chunk
