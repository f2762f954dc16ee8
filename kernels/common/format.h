// printf-style formatting into a std::string, for messages and table cells.
#pragma once

#include <cstdio>
#include <string>

namespace flabench {

template <class... Args>
std::string format(const char* pattern, Args... values) {
  const int length = std::snprintf(nullptr, 0, pattern, values...);
  std::string text(length > 0 ? length : 0, '\0');
  std::snprintf(text.data(), text.size() + 1, pattern, values...);
  return text;
}

}  // namespace flabench
