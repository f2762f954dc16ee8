#include "kernels/common/problem.h"

namespace flabench {

std::string shape_label(const Problem& p) {
  std::string label = "B" + std::to_string(p.B) + "-T" + std::to_string(p.T) + "-H" + std::to_string(p.H) +
                      "-K" + std::to_string(p.K) + "-V" + std::to_string(p.V);
  if (p.M > 0) label += "-M" + std::to_string(p.M);
  if (p.G > 1) label += "-G" + std::to_string(p.G);
  return label;
}

std::string_view mode_name(Mode mode) {
  return mode == Mode::fwd ? "fwd" : "fwdbwd";
}

}  // namespace flabench
