// The sizes and settings one variant call sees. Layout [B, T, H, D]; state [B, H, K, V] in fp32.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/dtype.h"

namespace flabench {

struct Problem {
  std::int64_t B = 1;   // batch (number of sequences)
  std::int64_t T = 1;   // sequence length
  std::int64_t H = 1;   // heads
  std::int64_t K = 64;  // key/query head dim
  std::int64_t V = 64;  // value head dim
  DType dtype = DType::bf16;
  int chunk_size = 0;  // 0 for variants that have no chunk size
  double scale = 1.0;
  std::int64_t M = 0;  // slots of a slot-memory op (gsa); 0 for the others
  std::int64_t G = 1;  // query heads per key/value head (grouped queries: HQ = G x H)

  std::int64_t tokens() const { return B * T; }
  bool operator==(const Problem&) const = default;
};

// "B4-T4096-H16-K64-V64" (and "-M64-G4" for slots and query groups): the shape part of a case name.
std::string shape_label(const Problem& problem);

enum class Mode { fwd, fwdbwd };

std::string_view mode_name(Mode mode);

}  // namespace flabench
