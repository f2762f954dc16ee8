#include "results/xz_text.h"

#include <lzma.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

namespace flabench {
namespace {

constexpr std::string_view kXzMagic(
    "\xFD"
    "7zXZ\0",
    6);

std::string lzma_message(lzma_ret code) {
  switch (code) {
    case LZMA_MEM_ERROR:
      return "out of memory";
    case LZMA_FORMAT_ERROR:
      return "not xz data";
    case LZMA_OPTIONS_ERROR:
      return "unsupported xz options";
    case LZMA_DATA_ERROR:
      return "corrupt xz data";
    case LZMA_BUF_ERROR:
      return "truncated xz data";
    default:
      return "xz decoder error " + std::to_string(static_cast<int>(code));
  }
}

}  // namespace

bool is_xz(std::string_view bytes) {
  return bytes.substr(0, kXzMagic.size()) == kXzMagic;
}

std::string xz_decompress(std::string_view bytes) {
  lzma_stream stream = LZMA_STREAM_INIT;
  lzma_ret code = lzma_stream_decoder(&stream, UINT64_MAX, LZMA_CONCATENATED);
  if (code != LZMA_OK) throw TextReadError(lzma_message(code));
  stream.next_in = reinterpret_cast<const std::uint8_t*>(bytes.data());
  stream.avail_in = bytes.size();
  std::string text;
  char buffer[1 << 16];
  do {
    stream.next_out = reinterpret_cast<std::uint8_t*>(buffer);
    stream.avail_out = sizeof(buffer);
    // all input is given at once: LZMA_FINISH lets the decoder tell a cut stream (LZMA_BUF_ERROR) from one
    // that needs more output room
    code = lzma_code(&stream, LZMA_FINISH);
    text.append(buffer, sizeof(buffer) - stream.avail_out);
  } while (code == LZMA_OK);
  lzma_end(&stream);
  if (code != LZMA_STREAM_END) throw TextReadError(lzma_message(code));
  return text;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TextReadError("cannot open: " + std::string(std::strerror(errno)));
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return is_xz(bytes) ? xz_decompress(bytes) : bytes;
}

}  // namespace flabench
