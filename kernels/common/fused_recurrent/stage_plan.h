// What a block stages per token (the host builds it, the kernels read it as a parameter): the segments of a
// token's record in shared memory, each a slice of one [B, T, H, ...] tensor's token row, grouped into runs
// of one shape that staging.cuh copies with one address computation. Host-safe, so tests check it on the CPU.
#pragma once

#include <stdexcept>

#include "kernels/common/fused_recurrent/layout.h"

namespace flabench::fused {

constexpr int kMaxSegments = 9;
constexpr int kMaxGroups = 5;  // runs of same-shaped segments (q, k, g, a, b; v and do; ...)
constexpr int kMaxRun = 5;     // segments in one run

// Consecutive tensors staged per token with one shape: `count` elements of each token row of `row_stride`
// elements (rows in [B, T, H] order), starting at element blockIdx.y * block_stride (the block's slice).
// Strides are kept in bytes; a group's segments lie `segment_bytes` apart in a token's record, so their
// copies share one address computation (one per thread and piece, whatever the run).
struct StageGroup {
  const char* bases[kMaxRun] = {};
  int run = 0;
  int row_bytes = 0;
  int block_bytes = 0;
  int smem_offset = 0;    // bytes from the start of a token record to the group's first segment
  int segment_bytes = 0;  // bytes between the group's segments in a record (a multiple of 16)
  int granule_shift = 4;  // log2 of the bytes per copy: 4, 8 or 16
  int piece_shift = 0;    // log2 of the copies per token (counts are powers of two)
};

struct StagePlan {
  StageGroup groups[kMaxGroups];
  int segment_offsets[kMaxSegments] = {};  // each segment's bytes from the start of a token record
  int num_groups = 0, num_segments = 0;
  int record_bytes = 0;  // one token, a multiple of 16
  int tokens = kChunk;   // tokens a chunk (a slot of the ring) holds

  // Adds a segment; returns its index. Segments are laid out in order, each padded to 16 bytes; one of the
  // shape of the segment before it joins that one's group.
  int add(const void* base, int elem_bytes, int row_stride, int count, int block_stride = 0) {
    const int bytes = count * elem_bytes;
    const int granule = bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : 4;
    StageGroup next;
    next.row_bytes = row_stride * elem_bytes, next.block_bytes = block_stride * elem_bytes;
    next.granule_shift = log2_of(granule);
    next.piece_shift = log2_of(bytes / granule);
    next.segment_bytes = (bytes + 15) / 16 * 16;
    if (num_segments == kMaxSegments) throw std::logic_error("StagePlan: more than kMaxSegments segments");
    StageGroup* last = num_groups > 0 ? &groups[num_groups - 1] : nullptr;
    if (!(last && last->run < kMaxRun && last->row_bytes == next.row_bytes &&
          last->block_bytes == next.block_bytes && last->granule_shift == next.granule_shift &&
          last->piece_shift == next.piece_shift)) {
      if (num_groups == kMaxGroups) throw std::logic_error("StagePlan: more than kMaxGroups shapes");
      next.smem_offset = record_bytes;
      groups[num_groups++] = next;
      last = &groups[num_groups - 1];
    }
    last->bases[last->run++] = static_cast<const char*>(base);
    segment_offsets[num_segments] = record_bytes;
    record_bytes += next.segment_bytes;
    return num_segments++;
  }
  __host__ __device__ int slot_bytes() const { return tokens * record_bytes; }
};

}  // namespace flabench::fused
