// NVTX ranges in the "fla-bench" domain, so `nsys` and `ncu --nvtx` can pick one case out of a full run.
// Header-only NVTX3: with no tool attached a range costs a few nanoseconds.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>
#include <vector>

namespace flabench {

inline nvtxDomainHandle_t fla_bench_nvtx_domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA("fla-bench");
  return handle;
}

// A case's range names: one per '/'-separated part of its name, because ncu reads '/' in
// `--nvtx-include 'fla-bench@a/b/'` as range b nested in range a; "gla/chunk/fwd/bf16/B4-..." becomes that
// stack of ranges, and `--nvtx-include 'fla-bench@<case name>/'` selects exactly its kernels. Split once per
// case, so the timed calls push them without building strings.
class NvtxPath {
 public:
  explicit NvtxPath(const std::string& path) {
    for (std::size_t begin = 0;;) {
      const std::size_t end = path.find('/', begin);
      parts_.push_back(path.substr(begin, end - begin));
      if (end == std::string::npos) break;
      begin = end + 1;
    }
  }
  const std::vector<std::string>& parts() const { return parts_; }

 private:
  std::vector<std::string> parts_;
};

// A push/pop range for a scope: one named range (a literal), or the stack of a case's NvtxPath.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { push(name); }
  explicit NvtxRange(const NvtxPath& path) {
    for (const std::string& part : path.parts()) push(part.c_str());
  }
  ~NvtxRange() {
    for (int i = 0; i < depth_; ++i) nvtxDomainRangePop(fla_bench_nvtx_domain());
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  void push(const char* name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    nvtxDomainRangePushEx(fla_bench_nvtx_domain(), &attributes);
    ++depth_;
  }

  int depth_ = 0;
};

}  // namespace flabench
