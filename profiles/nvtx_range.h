// NVTX ranges in the "fla-bench" domain, so `nsys` and `ncu --nvtx` can pick one case out of a full run.
// Header-only NVTX3: with no tool attached a range costs a few nanoseconds.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace flabench {

struct FlaBenchNvtxDomain {
  static constexpr const char* name{"fla-bench"};
};

// One push/pop range per '/'-separated part of `path`: ncu reads '/' in `--nvtx-include 'fla-bench@a/b/'` as
// range b nested in range a, so a case named "gla/chunk/fwd/bf16/B4-..." becomes that stack of ranges and
// `--nvtx-include 'fla-bench@<case name>/'` selects exactly its kernels. A plain name is a single range.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& path) {
    std::size_t begin = 0;
    while (true) {
      const std::size_t end = path.find('/', begin);
      push(path.substr(begin, end - begin));
      ++depth_;
      if (end == std::string::npos) break;
      begin = end + 1;
    }
  }
  ~NvtxRange() {
    for (int i = 0; i < depth_; ++i) nvtxDomainRangePop(domain());
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  static void push(const std::string& name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name.c_str();
    nvtxDomainRangePushEx(domain(), &attributes);
  }
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t handle = nvtxDomainCreateA(FlaBenchNvtxDomain::name);
    return handle;
  }

  int depth_ = 0;
};

}  // namespace flabench
