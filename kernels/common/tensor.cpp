#include "kernels/common/tensor.h"

namespace flabench {

std::int64_t element_count(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

std::string shape_string(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Array64 decode_tensor(const Tensor& host_tensor) {
  Array64 array(host_tensor.shape);
  decode_values(host_tensor.dtype, host_tensor.data, array.values);
  return array;
}

void encode_tensor(const Array64& values, const Tensor& host_tensor) {
  std::vector<float> narrowed(values.values.begin(), values.values.end());
  encode_values(host_tensor.dtype, narrowed, host_tensor.data);
}

}  // namespace flabench
