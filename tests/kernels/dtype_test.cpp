#include "kernels/common/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace flabench {
namespace {

TEST(DType, NamesRoundTrip) {
  for (DType dtype : kAllDTypes) EXPECT_EQ(parse_dtype(dtype_name(dtype)), dtype);
  EXPECT_FALSE(parse_dtype("fp8"));
  EXPECT_EQ(dtype_size(DType::fp32), 4u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
}

TEST(DType, RoundingMatchesEachFormat) {
  // 1 + 2^-9 is not a bf16 (8 bits of mantissa) but is an fp16 (11 bits); ties round to even.
  const float x = 1.0f + std::ldexp(1.0f, -9);
  EXPECT_EQ(round_to_dtype(DType::bf16, x), 1.0f);
  EXPECT_EQ(round_to_dtype(DType::fp16, x), x);
  EXPECT_EQ(round_to_dtype(DType::fp32, 0.1f), 0.1f);
  EXPECT_EQ(round_to_dtype(DType::bf16, 1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
}

TEST(DType, EncodeDecodeIsExactForRepresentableValues) {
  const std::vector<float> values{0.0f, -1.5f, 3.25f, 1e-3f, -40.0f};
  for (DType dtype : kAllDTypes) {
    std::vector<float> rounded;
    for (float v : values) rounded.push_back(round_to_dtype(dtype, v));
    std::vector<unsigned char> storage(values.size() * dtype_size(dtype));
    encode_values(dtype, rounded, storage.data());
    std::vector<double> decoded(values.size());
    decode_values(dtype, storage.data(), decoded);
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(decoded[i], rounded[i]) << dtype_name(dtype);
  }
}

TEST(DType, AllOnesBytesDecodeToNaN) {  // the poison the checks fill outputs with
  for (DType dtype : kAllDTypes) {
    std::vector<unsigned char> storage(dtype_size(dtype), 0xFF);
    std::vector<double> decoded(1);
    decode_values(dtype, storage.data(), decoded);
    EXPECT_TRUE(std::isnan(decoded[0])) << dtype_name(dtype);
  }
}

}  // namespace
}  // namespace flabench
