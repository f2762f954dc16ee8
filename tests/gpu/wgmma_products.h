// One warpgroup's products by wgmma (kernels/common/wgmma/), run on the GPU for
// tests/gpu/wgmma_product_test.cpp: built for sm_90a where the architecture list has 90.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace flabench::testing {

// D = A B with A 64 x depth and B depth x n (row-major, values a bf16 holds exactly), depth a multiple of
// 16: A from shared memory (K-major, or MN-major where a_mn_major) or from registers (a_in_registers), B
// from shared memory (K-major, or MN-major where b_mn_major; an MN-major B of n = 32 from its tile's columns
// b_first_column .. b_first_column + 31, 0 or 32, the columns before it holding other values).
struct WgmmaCase {
  int n, depth;
  bool a_mn_major, b_mn_major, a_in_registers;
  int b_first_column = 0;
};

// Why this machine cannot run the products (no GPU, a GPU other than compute capability 9.0, a build without
// sm_90a code), or nothing.
std::optional<std::string> why_no_wgmma();

// D (64 x n, row-major) as the GPU's products give it.
std::vector<float> wgmma_product(const WgmmaCase& c, const std::vector<float>& a,
                                 const std::vector<float>& b);

}  // namespace flabench::testing
