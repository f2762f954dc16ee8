#include "kernels/common/dtype.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace flabench {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::fp32:
      return "fp32";
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType dtype : kAllDTypes)
    if (dtype_name(dtype) == text) return dtype;
  return std::nullopt;
}

std::size_t dtype_size(DType dtype) {
  return dtype == DType::fp32 ? 4 : 2;
}

float round_to_dtype(DType dtype, float value) {
  switch (dtype) {
    case DType::fp32:
      return value;
    case DType::fp16:
      return __half2float(__float2half_rn(value));
    case DType::bf16:
      return __bfloat162float(__float2bfloat16_rn(value));
  }
  return value;
}

void encode_values(DType dtype, std::span<const float> values, void* storage) {
  const std::size_t n = values.size();
  switch (dtype) {
    case DType::fp32: {
      auto* out = static_cast<float*>(storage);
      for (std::size_t i = 0; i < n; ++i) out[i] = values[i];
      return;
    }
    case DType::fp16: {
      auto* out = static_cast<__half*>(storage);
      for (std::size_t i = 0; i < n; ++i) out[i] = __float2half_rn(values[i]);
      return;
    }
    case DType::bf16: {
      auto* out = static_cast<__nv_bfloat16*>(storage);
      for (std::size_t i = 0; i < n; ++i) out[i] = __float2bfloat16_rn(values[i]);
      return;
    }
  }
}

void decode_values(DType dtype, const void* storage, std::span<double> values) {
  const std::size_t n = values.size();
  switch (dtype) {
    case DType::fp32: {
      const auto* in = static_cast<const float*>(storage);
      for (std::size_t i = 0; i < n; ++i) values[i] = in[i];
      return;
    }
    case DType::fp16: {
      const auto* in = static_cast<const __half*>(storage);
      for (std::size_t i = 0; i < n; ++i) values[i] = __half2float(in[i]);
      return;
    }
    case DType::bf16: {
      const auto* in = static_cast<const __nv_bfloat16*>(storage);
      for (std::size_t i = 0; i < n; ++i) values[i] = __bfloat162float(in[i]);
      return;
    }
  }
}

}  // namespace flabench
