#include "kernels/common/problem.h"

namespace flabench {

std::string shape_label(const Problem& p) {
  return "B" + std::to_string(p.B) + "-T" + std::to_string(p.T) + "-H" + std::to_string(p.H) + "-K" +
         std::to_string(p.K) + "-V" + std::to_string(p.V);
}

std::string_view mode_name(Mode mode) {
  return mode == Mode::fwd ? "fwd" : "fwdbwd";
}

}  // namespace flabench
