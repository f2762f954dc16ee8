// Where a warpgroup product reads each element of a shared-memory operand, by the PTX ISA's canonical layouts
// of 16-bit elements in the 128-byte swizzle ("Shared Memory Matrix Layout", written out as address
// arithmetic): the model the CPU tests hold kernels/common/wgmma/layout.h's tiles and the kernels' operand
// descriptors against.
#pragma once

#include <cstdint>

namespace flabench::testing {

// The descriptor's fields back as bytes.
inline unsigned start_of(std::uint64_t d) {
  return unsigned(d & 0x3FFF) << 4;
}
inline unsigned leading_of(std::uint64_t d) {
  return unsigned(d >> 16 & 0x3FFF) << 4;
}
inline unsigned stride_of(std::uint64_t d) {
  return unsigned(d >> 32 & 0x3FFF) << 4;
}

// The 128-byte swizzle on an address (CuTe's Swizzle<3, 4, 3>: bits 4-6 XOR bits 7-9).
inline unsigned swizzle(unsigned address) {
  return address ^ ((address >> 7 & 7) << 4);
}

// Element (mn, k) of one instruction's operand (mn < 64 or N, k < 16). With T = 8 elements of 16 bits:
// K-major ((8, m), (T, 2k)) : ((8T, SBO), (1, T)); MN-major ((T, 8, m), (8, k)) : ((1, T, LBO), (8T, SBO)).
inline unsigned k_major_address(std::uint64_t d, int mn, int k) {
  return swizzle(start_of(d) + (mn % 8) * 128 + (mn / 8) * stride_of(d) + (k % 8) * 2 + (k / 8) * 16);
}
inline unsigned mn_major_address(std::uint64_t d, int mn, int k) {
  return swizzle(start_of(d) + (mn % 64) * 2 + (mn / 64) * leading_of(d) + (k % 8) * 128 +
                 (k / 8) * stride_of(d));
}
inline unsigned operand_address(std::uint64_t d, bool mn_major, int mn, int k) {
  return mn_major ? mn_major_address(d, mn, k) : k_major_address(d, mn, k);
}

}  // namespace flabench::testing
