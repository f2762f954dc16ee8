// aligned_within: the aligned pieces wholly inside a byte range, none outside it, none left out.
#include <gtest/gtest.h>

#include "kernels/common/aligned_span.h"

namespace flabench {
namespace {

TEST(AlignedSpan, TakesTheWholePiecesInsideTheRangeAndNothingOutside) {
  for (std::uintptr_t align : {4u, 16u, 128u})
    for (std::uintptr_t first = 1000; first < 1300; ++first)
      for (std::uintptr_t end = first; end < first + 400; end += 3) {
        const ByteSpan s = aligned_within(first, end, align);
        if (s.to <= s.from) {  // empty only where no whole piece fits
          const std::uintptr_t next = (first + align - 1) / align * align;
          ASSERT_GT(next + align, end) << first << " " << end << " by " << align;
          continue;
        }
        ASSERT_EQ(s.from % align, 0u);
        ASSERT_EQ(s.to % align, 0u);
        ASSERT_GE(s.from, first);
        ASSERT_LE(s.to, end);
        ASSERT_LT(s.from - first, align);  // no whole piece left out at either end
        ASSERT_LT(end - s.to, align);
      }
}

TEST(AlignedSpan, ExamplesAtSixteenBytes) {
  EXPECT_EQ(aligned_within(0x100, 0x200, 16).from, 0x100u);
  EXPECT_EQ(aligned_within(0x100, 0x200, 16).to, 0x200u);
  EXPECT_EQ(aligned_within(0x102, 0x13e, 16).from, 0x110u);
  EXPECT_EQ(aligned_within(0x102, 0x13e, 16).to, 0x130u);
  const ByteSpan none = aligned_within(0x101, 0x11f, 16);  // 30 bytes, no whole piece
  EXPECT_LE(none.to, none.from);
}

}  // namespace
}  // namespace flabench
