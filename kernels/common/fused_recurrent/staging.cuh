// Staging token rows into shared memory ahead of use: the threads of a block copy the rows of the next chunk
// of tokens with cp.async (sm_80+) into one slot of a two-slot ring while they work on the current chunk, so
// the global-memory latency of the inputs stays off the per-token critical path of the recurrence.
#pragma once

#include <cstdint>

#include "kernels/common/fused_recurrent/geometry.cuh"

namespace flabench::fused {

constexpr int kMaxSegments = 9;

// One tensor staged per token: `count` elements of each token row of `row_stride` elements (rows in
// [B, T, H] order), starting at element blockIdx.y * block_stride (the block's slice). Strides are kept in
// bytes, so a chunk's addresses cost the kernel one 64-bit product per run of same-shaped segments.
struct StageSegment {
  const char* base = nullptr;
  int row_bytes = 0;
  int block_bytes = 0;
  int smem_offset = 0;  // bytes from the start of a token record
  int granule = 16;     // bytes per copy: 4, 8 or 16
  int piece_shift = 0;  // log2 of the copies per token (counts are powers of two)
  // On the first of consecutive segments of one shape (the key vectors q, k, g, ...: same strides, count
  // and type), how many there are: their copies share one address computation. 0 on the others.
  int run = 1;
};

struct StagePlan {
  StageSegment segments[kMaxSegments];
  int num_segments = 0;
  int record_bytes = 0;  // one token, a multiple of 16

  // Adds a segment; returns its index. Segments are laid out in order, each padded to 16 bytes.
  int add(const void* base, int elem_bytes, int row_stride, int count, int block_stride = 0) {
    StageSegment& s = segments[num_segments];
    s.base = static_cast<const char*>(base);
    s.row_bytes = row_stride * elem_bytes, s.block_bytes = block_stride * elem_bytes;
    const int bytes = count * elem_bytes;
    s.granule = bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : 4;
    s.piece_shift = log2_of(bytes / s.granule);
    s.smem_offset = record_bytes;
    record_bytes += (bytes + 15) / 16 * 16;
    s.run = 1;
    if (num_segments > 0) {  // extend the run the previous segment belongs to, when of one shape
      int head = num_segments - 1;
      while (segments[head].run == 0) --head;
      StageSegment& r = segments[head];
      if (r.row_bytes == s.row_bytes && r.block_bytes == s.block_bytes && r.granule == s.granule &&
          r.piece_shift == s.piece_shift) {
        ++r.run;
        s.run = 0;
      }
    }
    return num_segments++;
  }
  __host__ __device__ int slot_bytes() const { return kChunk * record_bytes; }
};

__device__ __forceinline__ void cp_async(void* smem, const void* global, int bytes) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global));
  else if (bytes == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(global));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(global));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// The tokens of one chunk: chunk `index` of `chunks`, visited forward or backward in time.
struct ChunkSpan {
  int t0, length;
};
__device__ __forceinline__ ChunkSpan chunk_span(int index, int chunks, int T, bool reverse) {
  const int chunk = reverse ? chunks - 1 - index : index;
  const int t0 = chunk * kChunk;
  return {t0, min(kChunk, T - t0)};
}

// The block (or its threads [0, threads) as numbered by `thread`, for a kernel whose warps take different
// roles) fills `slot` with the rows of tokens [span.t0, span.t0 + span.length) of (b, h) and commits the
// copies as one group.
__device__ inline void stage_chunk(const StagePlan& plan, char* slot, ChunkSpan span, int b, int h, int T,
                                   int H, int thread = threadIdx.x, int threads = blockDim.x) {
  const std::int64_t first_row = (std::int64_t(b) * T + span.t0) * H + h;
  for (int seg = 0; seg < plan.num_segments; seg += plan.segments[seg].run) {
    const StageSegment& s = plan.segments[seg];
    // the chunk's first row in 64 bits once; a token's row and a piece in 32-bit offsets from it
    const std::int64_t start = first_row * s.row_bytes + blockIdx.y * s.block_bytes;
    const int token_bytes = H * s.row_bytes, segment_bytes = ((s.granule << s.piece_shift) + 15) / 16 * 16;
    char* target = slot + s.smem_offset;
    const int mask = (1 << s.piece_shift) - 1;
    for (int idx = thread; idx < (span.length << s.piece_shift); idx += threads) {
      const int token = idx >> s.piece_shift, piece = (idx & mask) * s.granule;
      const int from = token * token_bytes + piece, to = token * plan.record_bytes + piece;
      for (int r = 0; r < s.run; ++r)  // the run's segments lie segment_bytes apart in a record
        cp_async(target + to + r * segment_bytes, plan.segments[seg + r].base + start + from, s.granule);
    }
  }
  cp_async_commit();
}

template <class T>
__device__ __forceinline__ const T* staged(const StagePlan& plan, const char* slot, int token, int segment) {
  return reinterpret_cast<const T*>(slot + token * plan.record_bytes + plan.segments[segment].smem_offset);
}

// The ring over a sequence's chunks. acquire(i) makes chunk i readable by the whole block and puts chunk
// i + 1 in flight into the slot chunk i - 1 used, which the block is done with.
struct ChunkRing {
  const StagePlan& plan;
  char* slots;  // kStages * plan.slot_bytes()
  int chunks, b, h, T, H;
  bool reverse;

  __device__ char* slot(int index) const { return slots + (index % kStages) * plan.slot_bytes(); }
  __device__ void prime() const { stage(0); }
  __device__ void acquire(int index) const {
    __syncthreads();
    stage(index + 1);
    cp_async_wait<1>();
    __syncthreads();
  }

 private:
  __device__ void stage(int index) const {
    if (index < chunks)
      stage_chunk(plan, slot(index), chunk_span(index, chunks, T, reverse), b, h, T, H);
    else
      cp_async_commit();
  }
};

}  // namespace flabench::fused
