// The text of a file that may be xz-compressed: committed baselines are kept as .json.xz, and every command
// that reads result files reads them as they are. Told apart by the xz magic bytes, not the name.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace flabench {

// A file that cannot be read, or whose xz data is damaged.
class TextReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when `bytes` starts with the xz stream header's magic.
bool is_xz(std::string_view bytes);

// The decompressed bytes of one or more concatenated xz streams. Throws TextReadError saying what is wrong
// (truncated, corrupt, not xz).
std::string xz_decompress(std::string_view bytes);

// The file's bytes, decompressed where they are xz. Throws TextReadError when the file cannot be opened or
// its xz data is damaged.
std::string read_text(const std::filesystem::path& path);

}  // namespace flabench
