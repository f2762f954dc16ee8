// gsa's one state transpose moves 16-byte vectors, so it refuses, before it launches anything, sides that
// are not a multiple of 4 and buffers that are not 16-byte aligned (kernels/gsa/transpose_states.cu): a
// caller that broke the rule would otherwise read and write past its rows. Needs no GPU: the check comes
// first.
#include "kernels/gsa/transpose_states.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace flabench {
namespace {

TEST(GsaTransposeStates, RefusesSidesOrBuffersItCannotMoveInVectors) {
  alignas(16) float from[64] = {}, to[64] = {};
  EXPECT_THROW(gsa::transpose_states(from, to, 1, 6, 8, nullptr), std::logic_error) << "R = 6";
  EXPECT_THROW(gsa::transpose_states(from, to, 1, 8, 6, nullptr), std::logic_error) << "C = 6";
  EXPECT_THROW(gsa::transpose_states(from + 1, to, 1, 4, 4, nullptr), std::logic_error) << "from + 4 bytes";
  EXPECT_THROW(gsa::transpose_states(from, to + 2, 1, 4, 4, nullptr), std::logic_error) << "to + 8 bytes";
}

}  // namespace
}  // namespace flabench
