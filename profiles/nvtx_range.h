// NVTX ranges in the "fla-bench" domain, so `nsys` and `ncu --nvtx` can pick one case out of a full run.
// Header-only NVTX3: with no tool attached a range costs a few nanoseconds.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace flabench {

struct FlaBenchNvtxDomain {
  static constexpr const char* name{"fla-bench"};
};

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name.c_str();
    nvtxDomainRangePushEx(domain(), &attributes);
  }
  ~NvtxRange() { nvtxDomainRangePop(domain()); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t handle = nvtxDomainCreateA(FlaBenchNvtxDomain::name);
    return handle;
  }
};

}  // namespace flabench
