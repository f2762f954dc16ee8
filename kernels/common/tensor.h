// Tensor views handed to variants, and the fp64 host arrays the references work on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/named_map.h"

namespace flabench {

using Shape = std::vector<std::int64_t>;

std::int64_t element_count(const Shape& shape);
std::string shape_string(const Shape& shape);  // "[2, 64, 3, 16]"

// A non-owning view of contiguous memory on the backend that runs the variant (device or host).
struct Tensor {
  void* data = nullptr;
  DType dtype = DType::fp32;
  Shape shape;

  std::int64_t numel() const { return element_count(shape); }
  std::size_t bytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype); }
  template <class T>
  T* as() const {
    return static_cast<T*>(data);
  }
};

using TensorMap = NamedMap<Tensor>;

// Host values in fp64: what the references read and write, and what checks compare.
struct Array64 {
  Shape shape;
  std::vector<double> values;

  Array64() = default;
  explicit Array64(Shape shape_) : shape(std::move(shape_)), values(element_count(shape), 0.0) {}
  double* data() { return values.data(); }
  const double* data() const { return values.data(); }
};

using Arrays64 = NamedMap<Array64>;

// Host values in fp32, each exactly representable in the tensor's dtype: generated inputs before upload.
struct HostValues {
  DType dtype = DType::fp32;
  Shape shape;
  std::vector<float> values;
};

using HostValuesMap = NamedMap<HostValues>;

// Conversions between a tensor in host memory and fp64 values (through fp32 when encoding).
Array64 decode_tensor(const Tensor& host_tensor);
void encode_tensor(const Array64& values, const Tensor& host_tensor);

}  // namespace flabench
