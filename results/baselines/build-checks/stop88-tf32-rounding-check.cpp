// Stop 88's CPU check behind kernels/notes/chunk.md (What is left, stop 88): is (bits + 0x1000) & 0xffffe000
// cvt.rna.tf32.f32 (round to nearest, ties away from zero) for every finite fp32 value, and what does it do to
// NaNs? Not part of the build (the form was not adopted); compile and run:
//   g++ -std=c++20 -O2 stop88-tf32-rounding-check.cpp -o check && ./check
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>

static std::uint32_t two_operations(float x) { return (std::bit_cast<std::uint32_t>(x) + 0x1000u) & 0xffffe000u; }

// rna by its definition: the nearer TF32 neighbour, the one farther from zero at a tie, infinity past the
// largest TF32 value (every value and midpoint exact in double)
static std::uint32_t rna_by_definition(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x), toward_zero = bits & 0xffffe000u;
  const std::uint32_t sign = bits & 0x80000000u, magnitude = toward_zero & 0x7fffffffu;
  const bool past_largest = magnitude + 0x2000u == 0x7f800000u;
  const double low = std::bit_cast<float>(toward_zero);
  const double high_magnitude = past_largest ? std::ldexp(1.0, 128) : double(std::bit_cast<float>(magnitude + 0x2000u));
  const double high = sign ? -high_magnitude : high_magnitude;
  if (std::fabs(double(x) - low) < std::fabs(high - double(x))) return toward_zero;
  return past_largest ? (sign | 0x7f800000u) : (sign | (magnitude + 0x2000u));
}

int main() {
  long checked = 0, differ = 0;
  const auto check = [&](float x) { ++checked, differ += two_operations(x) != rna_by_definition(x); };
  for (std::uint32_t high : {0x3f800000u, 0x3fffe000u, 0xbf800000u, 0x00000000u, 0x7f7fe000u, 0xff7fe000u})
    for (std::uint32_t low = 0; low < 0x2000u; ++low) check(std::bit_cast<float>(high | low));
  std::mt19937 random(7);
  for (int n = 0; n < 2000000; ++n) {
    const float x = std::bit_cast<float>(std::uint32_t(random()));
    if (std::isfinite(x)) check(x);
  }
  std::printf("finite values checked: %ld, differing from rna: %ld\n", checked, differ);
  for (std::uint32_t nan : {0x7fc00000u, 0x7fffffffu, 0x7f800001u, 0xffffffffu})
    std::printf("NaN 0x%08x -> 0x%08x (%s)\n", nan, two_operations(std::bit_cast<float>(nan)),
                std::isfinite(std::bit_cast<float>(two_operations(std::bit_cast<float>(nan)))) ? "finite" : "non-finite");
}
