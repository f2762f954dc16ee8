// Element types of the tensors a case moves: the case dtype for activations and fp32 for states.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace flabench {

enum class DType : std::uint8_t { fp32, fp16, bf16 };

inline constexpr DType kAllDTypes[] = {DType::fp32, DType::fp16, DType::bf16};

std::string_view dtype_name(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
std::size_t dtype_size(DType dtype);

// The nearest value of `dtype` to `value` (round to nearest even), returned as a float.
float round_to_dtype(DType dtype, float value);

// Host conversions between float/double values and the storage format of `dtype`.
void encode_values(DType dtype, std::span<const float> values, void* storage);
void decode_values(DType dtype, const void* storage, std::span<double> values);

}  // namespace flabench
