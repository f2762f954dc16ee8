// Bad user input (a flag, an axis, a shape, a path, a device): one line naming the argument and what is
// allowed. The app prints it and exits with status 2.
#pragma once

#include <stdexcept>

namespace flabench {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace flabench
