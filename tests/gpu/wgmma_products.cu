// One warpgroup's products by wgmma, for tests/gpu/wgmma_product_test.cpp: the operands are stored in
// layout.h's tiles by ordinary stores, read through its descriptors (or A from registers by its fragment
// map), and the accumulators written back by its accumulator map, so that a wrong field or map shows as a
// wrong product. (ptxas serializes these products, C7520, for the loop over a run-time depth: a matter of
// speed, which this test does not time; the kernels' loops have compile-time counts.)
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <tuple>

#include "kernels/common/cuda_check.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/common/shared_address.cuh"
#include "kernels/common/wgmma/wgmma.cuh"
#include "suites/device.h"
#include "tests/gpu/wgmma_products.h"

namespace flabench::testing {
namespace {

using bf16 = __nv_bfloat16;
using namespace wgmma;

constexpr int kMaxDepth = 128, kMaxN = 128;
// Room for both tiles at their largest, and for aligning the first to the swizzle's 1024-byte pattern.
constexpr int kSharedBytes = 64 * kMaxDepth * 2 + kMaxDepth * kMaxN * 2 + kGroupBytes;

template <int N, bool kAMn, bool kBMn, bool kARegisters, int kBColumn = 0>
__global__ void __launch_bounds__(128) product_kernel(const bf16* a, const bf16* b, float* d, int depth) {
  static_assert(kBColumn == 0 || (kBMn && N + kBColumn <= kPanelColumns));
  extern __shared__ unsigned char raw[];
  unsigned char* const a_at = raw + (kGroupBytes - shared_address(raw) % kGroupBytes) % kGroupBytes;
  const Tile a_tile{kAMn ? depth : kRows}, b_tile{kBMn ? depth : N};
  unsigned char* const b_at = a_at + (kAMn ? a_tile.bytes(kRows) : a_tile.bytes(depth));
  for (int e = threadIdx.x; e < kRows * depth; e += blockDim.x) {
    const int m = e / depth, k = e % depth;
    *reinterpret_cast<bf16*>(a_at + (kAMn ? a_tile.offset(k, m) : a_tile.offset(m, k))) = a[e];
  }
  for (int e = threadIdx.x; e < depth * N; e += blockDim.x) {
    const int k = e / N, n = e % N;
    *reinterpret_cast<bf16*>(b_at + (kBMn ? b_tile.offset(k, kBColumn + n) : b_tile.offset(n, k))) = b[e];
  }
  if constexpr (kBColumn > 0)  // other values in the columns before B's
    for (int e = threadIdx.x; e < depth * kBColumn; e += blockDim.x)
      *reinterpret_cast<bf16*>(b_at + b_tile.offset(e / kBColumn, e % kBColumn)) = bf16(1.0f);
  fence_shared_for_async();
  __syncthreads();

  float acc[N / 2];
#pragma unroll
  for (int r = 0; r < N / 2; ++r) acc[r] = NAN;  // the first step overwrites (accumulate = false)
  const unsigned a_base = shared_address(a_at), b_base = shared_address(b_at);
  hold(acc);
  if constexpr (!kARegisters) fence();
  for (int step = 0; step < depth / kDepth; ++step) {
    const std::uint64_t b_operand =
        kBMn ? mn_major(b_base, b_tile, kBColumn, step) : k_major(b_base, b_tile, 0, step);
    if constexpr (kARegisters) {
      std::uint32_t fragment[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const Element low = a_fragment_element(threadIdx.x, 2 * i),
                      high = a_fragment_element(threadIdx.x, 2 * i + 1);
        const __nv_bfloat162 pair{a[low.row * depth + kDepth * step + low.column],
                                  a[high.row * depth + kDepth * step + high.column]};
        fragment[i] = *reinterpret_cast<const std::uint32_t*>(&pair);
      }
      fence();  // the fragment's registers were just written
      product<N, kBMn>(acc, fragment, b_operand, step > 0);
    } else {
      const std::uint64_t a_operand =
          kAMn ? mn_major(a_base, a_tile, 0, step) : k_major(a_base, a_tile, 0, step);
      product<N, kAMn, kBMn>(acc, a_operand, b_operand, step > 0);
    }
  }
  commit();
  wait<0>();
  hold(acc);
#pragma unroll
  for (int r = 0; r < N / 2; ++r) {
    const Element at = accumulator_element(threadIdx.x, r);
    d[at.row * N + at.column] = acc[r];
  }
}

using Kernel = void (*)(const bf16*, const bf16*, float*, int);
using Key = std::tuple<int, bool, bool, bool, int>;  // n, A MN-major, B MN-major, A in registers, B's column

const std::map<Key, Kernel>& kernels() {
  static const std::map<Key, Kernel> all = {
      {{32, false, false, false, 0}, product_kernel<32, false, false, false>},
      {{32, false, true, false, 0}, product_kernel<32, false, true, false>},
      {{32, true, true, false, 0}, product_kernel<32, true, true, false>},
      {{64, false, false, false, 0}, product_kernel<64, false, false, false>},
      {{128, false, false, false, 0}, product_kernel<128, false, false, false>},
      {{64, false, true, false, 0}, product_kernel<64, false, true, false>},
      {{128, false, true, false, 0}, product_kernel<128, false, true, false>},
      {{64, true, false, false, 0}, product_kernel<64, true, false, false>},
      {{64, true, true, false, 0}, product_kernel<64, true, true, false>},
      {{32, false, true, true, 0}, product_kernel<32, false, true, true>},
      {{64, false, true, true, 0}, product_kernel<64, false, true, true>},
      {{128, false, false, true, 0}, product_kernel<128, false, false, true>},
      {{32, false, true, false, 32}, product_kernel<32, false, true, false, 32>},
  };
  return all;
}

}  // namespace

std::optional<std::string> why_no_wgmma() {
  if (std::string why; cuda_device_count(why) == 0) return "no CUDA device: " + why;
  cudaDeviceProp prop{};
  FLA_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9 || prop.minor != 0)
    return "wgmma needs compute capability 9.0; GPU 0 (" + std::string(prop.name) + ") is " +
           std::to_string(prop.major) + "." + std::to_string(prop.minor);
  if (!built_for_sm90a()) return "this build has no sm_90a code (CMAKE_CUDA_ARCHITECTURES has no 90)";
  return std::nullopt;
}

std::vector<float> wgmma_product(const WgmmaCase& c, const std::vector<float>& a,
                                 const std::vector<float>& b) {
  const auto found = kernels().find(Key{c.n, c.a_mn_major, c.b_mn_major, c.a_in_registers, c.b_first_column});
  if (found == kernels().end() || c.depth % kDepth != 0 || c.depth > kMaxDepth)
    throw std::invalid_argument("no wgmma probe kernel for this case");
  std::vector<bf16> a16(a.begin(), a.end()), b16(b.begin(), b.end());
  bf16 *a_dev, *b_dev;
  float* d_dev;
  FLA_CUDA_CHECK(cudaMalloc(&a_dev, a16.size() * sizeof(bf16)));
  FLA_CUDA_CHECK(cudaMalloc(&b_dev, b16.size() * sizeof(bf16)));
  FLA_CUDA_CHECK(cudaMalloc(&d_dev, std::size_t(kRows) * c.n * sizeof(float)));
  FLA_CUDA_CHECK(cudaMemcpy(a_dev, a16.data(), a16.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  FLA_CUDA_CHECK(cudaMemcpy(b_dev, b16.data(), b16.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  allow_shared_memory(found->second, kSharedBytes);
  found->second<<<1, 128, kSharedBytes>>>(a_dev, b_dev, d_dev, c.depth);
  FLA_CUDA_CHECK(cudaGetLastError());
  std::vector<float> d(std::size_t(kRows) * c.n);
  FLA_CUDA_CHECK(cudaMemcpy(d.data(), d_dev, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
  FLA_CUDA_CHECK(cudaFree(a_dev));
  FLA_CUDA_CHECK(cudaFree(b_dev));
  FLA_CUDA_CHECK(cudaFree(d_dev));
  return d;
}

}  // namespace flabench::testing
