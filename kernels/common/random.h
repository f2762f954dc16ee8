// Reproducible random values: element i of a tensor depends only on (seed, tensor name, i), so values are the
// same whatever the thread count, and a check on a shortened case draws from the same distributions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/common/tensor.h"

namespace flabench {

class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::string_view tensor_name);

  double uniform(std::uint64_t index) const;  // in (0, 1)
  double normal(std::uint64_t index) const;   // standard normal (Box-Muller)

  // out[i] = normal(i), on the host's cores.
  void fill_normal(std::span<float> out) const;

 private:
  std::uint64_t key_;
};

// Fills `values` with standard normal draws from the stream named `name`.
void fill_normal(HostValues& values, std::uint64_t seed, std::string_view name);

double sigmoid(double x);
double log_sigmoid(double x);

}  // namespace flabench
