// xz-compressed text for the tests of reading .json.xz result files.
#pragma once

#include <lzma.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace flabench::testing {

inline std::string xz_compressed(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  std::size_t written = 0;
  if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr,
                              reinterpret_cast<const std::uint8_t*>(text.data()), text.size(),
                              reinterpret_cast<std::uint8_t*>(out.data()), &written, out.size()) != LZMA_OK)
    throw std::runtime_error("xz encoding failed");
  out.resize(written);
  return out;
}

}  // namespace flabench::testing
