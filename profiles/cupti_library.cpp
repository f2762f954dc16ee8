#include "profiles/cupti_library.h"

#include <dlfcn.h>

#include <mutex>

namespace flabench {
namespace {

// The CUDA 13 soname through the loader's path, then where the toolkit fla-bench was built with keeps it.
constexpr const char* kLibraryNames[] = {"libcupti.so.13", FLA_BENCH_CUDA_LIBRARY_DIR "/libcupti.so.13",
                                         "libcupti.so"};

}  // namespace

const CuptiLibrary* CuptiLibrary::get(std::string& why) {
  static std::once_flag once;
  static std::unique_ptr<CuptiLibrary> library;
  static std::string failure;
  std::call_once(once, [] {
    void* handle = nullptr;
    for (const char* name : kLibraryNames)
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!handle) {
      failure =
          "CUPTI is not installed or not on the library path (libcupti.so.13; LD_LIBRARY_PATH=<cuda>/lib64)";
      return;
    }
    std::unique_ptr<CuptiLibrary> loaded(new CuptiLibrary);
#define FLA_BENCH_CUPTI_LOAD(name)                                              \
  loaded->name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));     \
  if (!loaded->name) {                                                          \
    failure = "the CUPTI found lacks " #name " (CUDA 13.0 or newer is needed)"; \
    return;                                                                     \
  }
    FLA_BENCH_CUPTI_FUNCTIONS(FLA_BENCH_CUPTI_LOAD)
#undef FLA_BENCH_CUPTI_LOAD
    library = std::move(loaded);  // the handle stays open for the life of the process
  });
  why = failure;
  return library.get();
}

std::string CuptiLibrary::result_name(CUptiResult result) const {
  const char* text = nullptr;
  if (cuptiGetResultString && cuptiGetResultString(result, &text) == CUPTI_SUCCESS && text) return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

void cupti_check(const CuptiLibrary& cupti, CUptiResult result, const char* what) {
  if (result != CUPTI_SUCCESS) throw CuptiError(what, result, cupti.result_name(result));
}

}  // namespace flabench
