// simple_gla's fused forward on Hopper (kernels/simple_gla/chunk_fused_forward.cu) emulated product by
// product on the CPU: its operands stored where the kernel stores them (token tiles by Tile::offset, the
// state's two parts from the accumulator map), each product read through the descriptors the kernel passes
// (FusedOperands) by the PTX ISA's address model (wgmma_model.h) with the kernel's trans flags, against the
// same product of plain matrices. A wrong tile, column block, step or majorness shows as a wrong product
// here, before a GPU runs the kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/wgmma/layout.h"
#include "kernels/simple_gla/chunk_fused_layout.h"
#include "tests/kernels/wgmma_emulation.h"

namespace flabench::chunk {
namespace {

using wgmma::accumulator_element;
using wgmma::Element;
using wgmma::kDepth;
using wgmma::kRows;
using wgmma::Tile;
constexpr int C = kFusedChunk;
using testing::bf16_matrix;
using testing::expect_near;
using testing::Matrix;
using testing::parts;
using testing::product;
using testing::Shared;

class FusedProducts : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(FusedProducts, ReadWhatTheKernelStored) {
  const auto [K, Vs] = GetParam();
  const FusedLayout L = fused_layout(K, Vs);
  const FusedOperands at{L, 0};
  const int stage = L.stages - 1;    // the last, so that a stage's offset counts
  const int buffer = L.buffers - 1;  // the state's last buffer (columns Vs .. 2 Vs - 1 where two), likewise
  std::mt19937 rng(K + Vs);
  Shared smem(L.bytes());
  const Tile tokens{C}, keys{K};

  // the loads' tiles q, k, v and the state's v e^{to end} in two parts (side by side in its own tile), token
  // rows
  const Matrix q = bf16_matrix(C, K, rng), k = bf16_matrix(C, K, rng), v = bf16_matrix(C, Vs, rng);
  std::uniform_real_distribution<double> unit(0.05, 1.0);
  std::vector<double> to_end(C);
  for (double& f : to_end) f = unit(rng);
  Matrix v_high(C, Vs), v_low(C, Vs);
  for (int t = 0; t < C; ++t) {
    for (int c = 0; c < K; ++c) {
      smem.store(L.q(stage) + tokens.offset(t, c), q(t, c));
      smem.store(L.k(stage) + tokens.offset(t, c), k(t, c));
    }
    for (int c = 0; c < Vs; ++c) {
      smem.store(L.v(stage) + tokens.offset(t, c), v(t, c));
      std::tie(v_high(t, c), v_low(t, c)) = parts(float(v(t, c)) * float(to_end[t]));
      smem.store(L.decayed_values() + tokens.offset(t, L.decayed_column(0) + c), v_high(t, c));
      smem.store(L.decayed_values() + tokens.offset(t, L.decayed_column(1) + c), v_low(t, c));
    }
  }
  // the state's two parts, as the state's warpgroup stores them from its accumulators (a register pair a
  // 32-bit store)
  std::normal_distribution<double> normal;
  Matrix S(K, Vs), S_high(K, Vs), S_low(K, Vs);
  for (double& x : S.x) x = normal(rng);
  for (int m = 0; m < K / kRows; ++m)
    for (int thread = 0; thread < 128; ++thread)
      for (int r = 0; r < Vs / 2; r += 2) {
        const Element e = accumulator_element(thread, r);
        const int key = kRows * m + e.row;
        const unsigned offset = keys.offset(key, L.state_column(buffer) + e.column);
        for (int half = 0; half < 2; ++half) {
          const auto [high, low] = parts(S(key, e.column + half));
          S_high(key, e.column + half) = high, S_low(key, e.column + half) = low;
          smem.store(L.state(0) + offset + 2 * half, high);
          smem.store(L.state(1) + offset + 2 * half, low);
        }
      }

  // the outputs' products: P = q k^T and q S, over the keys
  Matrix P(C, C), qS(C, Vs), want_P(C, C), want_qS(C, Vs);
  for (int step = 0; step < K / kDepth; ++step) {
    product(P, smem, at.queries(stage, step), false, at.keys(stage, step), false);
    for (int part = 0; part < 2; ++part)
      product(qS, smem, at.queries(stage, step), false, at.state(buffer, part, step), true);
  }
  for (int i = 0; i < C; ++i)
    for (int c = 0; c < K; ++c) {
      for (int j = 0; j < C; ++j) want_P(i, j) += q(i, c) * k(j, c);
      for (int n = 0; n < Vs; ++n) want_qS(i, n) += q(i, c) * (S_high(c, n) + S_low(c, n));
    }
  expect_near(P, want_P, "q k^T");
  expect_near(qS, want_qS, "q S");

  // P v over the tokens, P from registers
  Matrix Pv(C, Vs), want_Pv(C, Vs);
  for (int step = 0; step < C / kDepth; ++step) product(Pv, smem, want_P, step, at.values(stage, step), true);
  for (int i = 0; i < C; ++i)
    for (int j = 0; j < C; ++j)
      for (int n = 0; n < Vs; ++n) want_Pv(i, n) += want_P(i, j) * v(j, n);
  expect_near(Pv, want_Pv, "P v");

  // the state update: k^T (v e^{to end}) over the tokens, a 64-key block at a time
  for (int m = 0; m < K / kRows; ++m) {
    Matrix update(kRows, Vs), want(kRows, Vs);
    for (int step = 0; step < C / kDepth; ++step)
      for (int part = 0; part < 2; ++part)
        product(update, smem, at.keys_transposed(stage, m, step), true, at.decayed_values(part, step), true);
    for (int row = 0; row < kRows; ++row)
      for (int t = 0; t < C; ++t)
        for (int n = 0; n < Vs; ++n) want(row, n) += k(t, kRows * m + row) * (v_high(t, n) + v_low(t, n));
    expect_near(update, want, "k^T v e^{to end}");
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FusedProducts,
                         ::testing::Values(std::pair{64, 32}, std::pair{64, 64}, std::pair{128, 32},
                                           std::pair{128, 64}),
                         [](const auto& info) {
                           return "K" + std::to_string(info.param.first) + "_Vs" +
                                  std::to_string(info.param.second);
                         });

}  // namespace
}  // namespace flabench::chunk
