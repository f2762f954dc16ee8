// A case's NVTX ranges are the parts of its name, the stack `ncu --nvtx-include 'fla-bench@<case>/'` matches.
#include "profiles/nvtx_range.h"

#include <gtest/gtest.h>

namespace flabench {
namespace {

TEST(NvtxPath, ACaseNameBecomesOneRangePerPart) {
  EXPECT_EQ(NvtxPath("gla/fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K64-V64").parts(),
            (std::vector<std::string>{"gla", "fused_recurrent", "fwdbwd", "bf16", "B4-T4096-H16-K64-V64"}));
  EXPECT_EQ(NvtxPath("forward").parts(), (std::vector<std::string>{"forward"}));
  const NvtxRange nested(NvtxPath("a/b"));  // pushes and pops with no tool attached
}

}  // namespace
}  // namespace flabench
