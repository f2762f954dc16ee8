#include <algorithm>
#include <iostream>

#include "app/commands.h"
#include "kernels/common/format.h"

namespace flabench {

int list_command(const CommandLine& line) {
  if (line.list_presets) {
    for (const PresetGroup& group : preset_groups()) {
      std::cout << group.name << ": " << group.description << "\n";
      for (const Shape5& shape : group.shapes) std::cout << "  " << shape_name(shape) << "\n";
    }
    return 0;
  }
  Session session = open_session(line);
  std::size_t width = 4, runnable = 0;
  for (const Case& c : session.cases) width = std::max(width, c.name.size());
  for (const Case& c : session.cases) {
    std::cout << c.name << std::string(width - c.name.size() + 2, ' ');
    if (c.skip_reason) {
      std::cout << "skipped: " << *c.skip_reason << "\n";
      continue;
    }
    ++runnable;
    std::cout << format("scale=%g", c.problem.scale) << "\n";
  }
  std::cout << format("%zu cases (%zu run, %zu skipped) on %s\n", session.cases.size(), runnable,
                      session.cases.size() - runnable, session.device->record().name.c_str());
  return 0;
}

}  // namespace flabench
