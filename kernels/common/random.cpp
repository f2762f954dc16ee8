#include "kernels/common/random.h"

#include <cmath>
#include <numbers>

#include "kernels/common/parallel_for.h"

namespace flabench {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double unit_interval(std::uint64_t bits) {  // 53 random bits -> (0, 1)
  return (static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::string_view tensor_name) : key_(mix(seed)) {
  for (char c : tensor_name) key_ = mix(key_ ^ static_cast<unsigned char>(c));
}

double RandomStream::uniform(std::uint64_t index) const {
  return unit_interval(mix(key_ ^ mix(index)));
}

double RandomStream::normal(std::uint64_t index) const {
  const std::uint64_t bits = mix(key_ ^ mix(index));
  const double u1 = unit_interval(bits), u2 = unit_interval(mix(bits));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

void RandomStream::fill_normal(std::span<float> out) const {
  parallel_for_elements(static_cast<std::int64_t>(out.size()),
                        [&](std::int64_t i) { out[i] = static_cast<float>(normal(i)); });
}

void fill_normal(HostValues& values, std::uint64_t seed, std::string_view name) {
  RandomStream(seed, name).fill_normal(values.values);
}

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

double log_sigmoid(double x) {
  return x < 0 ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x));
}

}  // namespace flabench
