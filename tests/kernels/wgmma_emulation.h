// Warpgroup products emulated on the CPU: a block's shared memory as bf16 values at byte addresses, and one
// instruction's depth step read through its descriptors by the PTX ISA's address model (wgmma_model.h), so
// that a kernel's tiles and descriptors are checked against plain matrix products before a GPU runs it
// (scalar_fused_products_test.cpp, scalar_grads_wgmma_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/wgmma/layout.h"
#include "tests/kernels/wgmma_model.h"

namespace flabench::testing {

inline double bf16(double x) {
  return round_to_dtype(DType::bf16, float(x));
}

// A matrix of doubles, row-major.
struct Matrix {
  int rows, columns;
  std::vector<double> x;
  Matrix(int r, int c) : rows(r), columns(c), x(std::size_t(r) * c) {}
  double& operator()(int i, int j) { return x[std::size_t(i) * columns + j]; }
  double operator()(int i, int j) const { return x[std::size_t(i) * columns + j]; }
};

// The block's shared memory, base address 0: a bf16 value for each two bytes.
struct Shared {
  std::vector<double> halves;
  explicit Shared(std::size_t bytes) : halves(bytes / 2) {}
  void store(unsigned at, double x) { halves.at(at / 2) = bf16(x); }
  double load(unsigned at) const { return halves.at(at / 2); }
};

// A random matrix of values a bf16 holds.
inline Matrix bf16_matrix(int rows, int columns, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  Matrix m(rows, columns);
  for (double& x : m.x) x = bf16(normal(rng));
  return m;
}

// An fp32 value's two bf16 parts, as the kernel's split makes them.
inline std::pair<double, double> parts(double x) {
  const double high = bf16(x);
  return {high, bf16(float(x) - float(high))};
}

// d (64 x n) += A B, one depth step, A and B read through their descriptors.
inline void product(Matrix& d, const Shared& smem, std::uint64_t a, bool a_mn, std::uint64_t b, bool b_mn) {
  for (int m = 0; m < wgmma::kRows; ++m)
    for (int n = 0; n < d.columns; ++n)
      for (int k = 0; k < wgmma::kDepth; ++k)
        d(m, n) += smem.load(operand_address(a, a_mn, m, k)) * smem.load(operand_address(b, b_mn, n, k));
}
// ... with A (64 x 16) from registers: columns 16 step .. of `a`.
inline void product(Matrix& d, const Shared& smem, const Matrix& a, int step, std::uint64_t b, bool b_mn) {
  for (int m = 0; m < wgmma::kRows; ++m)
    for (int n = 0; n < d.columns; ++n)
      for (int k = 0; k < wgmma::kDepth; ++k)
        d(m, n) += a(m, wgmma::kDepth * step + k) * smem.load(operand_address(b, b_mn, n, k));
}

// Every element of `got` within 1e-9 (relative) of `want`; the first three misses reported.
inline void expect_near(const Matrix& got, const Matrix& want, const char* what) {
  int wrong = 0;
  for (int i = 0; i < want.rows; ++i)
    for (int j = 0; j < want.columns; ++j)
      if (std::abs(got(i, j) - want(i, j)) > 1e-9 * (1 + std::abs(want(i, j))) && wrong++ < 3)
        ADD_FAILURE() << what << "[" << i << "][" << j << "] = " << got(i, j) << ", want " << want(i, j);
  EXPECT_EQ(wrong, 0) << what;
}

}  // namespace flabench::testing
