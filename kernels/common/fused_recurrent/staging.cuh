// Staging token rows into shared memory ahead of use: the threads of a block copy the rows of the next chunk
// of tokens with cp.async (sm_80+) into one slot of a two-slot ring while they work on the current chunk, so
// the global-memory latency of the inputs stays off the per-token critical path of the recurrence.
#pragma once

#include <cstdint>

#include "kernels/common/fused_recurrent/geometry.cuh"

namespace flabench::fused {

constexpr int kStages = 2;  // one chunk in flight while the other is used: 16 token steps hide the latency
constexpr int kMaxSegments = 9;

__host__ __device__ constexpr int log2_of(int n) {
  int shift = 0;
  while ((1 << shift) < n) ++shift;
  return shift;
}

// One tensor staged per token: `count` elements of each token row of `row_stride` elements (rows in
// [B, T, H] order), starting at element blockIdx.y * block_stride (the block's slice).
struct StageSegment {
  const char* base = nullptr;
  int elem_bytes = 2;
  int row_stride = 0;
  int block_stride = 0;
  int count = 0;
  int smem_offset = 0;  // bytes from the start of a token record
  int granule = 16;     // bytes per copy: 4, 8 or 16
  int piece_shift = 0;  // log2 of the copies per token (counts are powers of two)
};

struct StagePlan {
  StageSegment segments[kMaxSegments];
  int num_segments = 0;
  int record_bytes = 0;  // one token, a multiple of 16

  // Adds a segment; returns its index. Segments are laid out in order, each padded to 16 bytes.
  int add(const void* base, int elem_bytes, int row_stride, int count, int block_stride = 0) {
    StageSegment& s = segments[num_segments];
    s.base = static_cast<const char*>(base);
    s.elem_bytes = elem_bytes, s.row_stride = row_stride, s.block_stride = block_stride, s.count = count;
    const int bytes = count * elem_bytes;
    s.granule = bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : 4;
    s.piece_shift = log2_of(bytes / s.granule);
    s.smem_offset = record_bytes;
    record_bytes += (bytes + 15) / 16 * 16;
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
  for (int seg = 0; seg < plan.num_segments; ++seg) {
    const StageSegment& s = plan.segments[seg];
    const int mask = (1 << s.piece_shift) - 1;
    for (int idx = thread; idx < (span.length << s.piece_shift); idx += threads) {
      const int token = idx >> s.piece_shift, piece = idx & mask;
      const std::int64_t row = (std::int64_t(b) * T + span.t0 + token) * H + h;
      const std::int64_t first = row * s.row_stride + std::int64_t(blockIdx.y) * s.block_stride;
      cp_async(slot + token * plan.record_bytes + s.smem_offset + piece * s.granule,
               s.base + first * s.elem_bytes + piece * s.granule, s.granule);
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
