#include "kernels/common/tensor_map.h"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

namespace flabench {

TokenTileMapShape token_tile_map_shape(std::int64_t B, std::int64_t T, std::int64_t H, std::int64_t D,
                                       int rows) {
  constexpr std::int64_t kMaxDim = std::int64_t(1) << 32;
  for (const std::int64_t dim : {B, T, H, D})
    if (dim < 1 || dim > kMaxDim) throw std::invalid_argument("tensor map: a dim is zero or past 2^32");
  if (D % kTileMapColumns != 0) throw std::invalid_argument("tensor map: D is not a multiple of 64");
  if (rows < 8 || rows > 256 || rows % 8 != 0)
    throw std::invalid_argument("tensor map: a box of rows not in 8 .. 256 or not a multiple of 8");
  constexpr std::uint64_t kElement = 2;  // bytes of a 16-bit element
  const std::uint64_t head = kElement * std::uint64_t(D), token = head * std::uint64_t(H);
  return {{std::uint64_t(D), std::uint64_t(H), std::uint64_t(T), std::uint64_t(B)},
          {head, token, token * std::uint64_t(T)},
          {std::uint32_t(kTileMapColumns), 1u, std::uint32_t(rows), 1u}};
}

namespace {

// The driver's encoder, looked up once (by the ABI version that introduced it).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static std::once_flag once;
  static PFN_cuTensorMapEncodeTiled_v12000 encoder = nullptr;
  std::call_once(once, [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050  // the lookup by version; the one before it is deprecated from CUDA 13
    const cudaError_t status = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                                cudaEnableDefault, &found);
#else
    const cudaError_t status =
        cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &function, cudaEnableDefault, &found);
#endif
    if (status == cudaSuccess && found == cudaDriverEntryPointSuccess)
      encoder = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  });
  if (!encoder) throw std::runtime_error("tensor map: the driver has no cuTensorMapEncodeTiled");
  return encoder;
}

}  // namespace

CUtensorMap encode_bf16_token_tile_map(const void* data, const TokenTileMapShape& shape) {
  if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
    throw std::runtime_error("tensor map: the tensor is not 16-byte aligned");
  CUtensorMap map{};
  const std::array<cuuint32_t, 4> unit_steps{1, 1, 1, 1};
  const CUresult result = tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, const_cast<void*>(data), shape.dims.data(),
      shape.strides.data(), shape.box.data(), unit_steps.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("tensor map: cuTensorMapEncodeTiled failed with CUresult " +
                             std::to_string(int(result)));
  return map;
}

}  // namespace flabench
