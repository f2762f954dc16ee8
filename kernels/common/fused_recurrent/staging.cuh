// Staging token rows into shared memory ahead of use: the threads of a block copy the rows of the next chunk
// of tokens with cp.async (sm_80+) into one slot of a two-slot ring while they work on the current chunk, so
// the global-memory latency of the inputs stays off the per-token critical path of the recurrence.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/common/cp_async.cuh"
#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/stage_plan.h"
#include "kernels/common/shared_address.cuh"

namespace flabench::fused {

// The tokens of one chunk of `tokens`: chunk `index` of `chunks`, visited forward or backward in time.
struct ChunkSpan {
  int t0, length;
};
__device__ __forceinline__ ChunkSpan chunk_span(int index, int chunks, int T, bool reverse,
                                                int tokens = kChunk) {
  const int chunk = reverse ? chunks - 1 - index : index;
  const int t0 = chunk * tokens;
  return {t0, min(tokens, T - t0)};
}

// The block (or its threads [0, threads) as numbered by `thread`, for a kernel whose warps take different
// roles) fills `slot` with the rows of tokens [span.t0, span.t0 + span.length) of (b, h), sequences `stride`
// tokens apart, and commits the copies as one group. The loops over groups and runs are unrolled, so every
// field of the plan is read at a fixed place of the kernel's parameters; per thread and piece, one 32-bit
// offset serves the whole run.
__device__ inline void stage_chunk(const StagePlan& plan, char* slot, ChunkSpan span, int b, int h,
                                   int stride, int H, int thread = threadIdx.x, int threads = blockDim.x) {
  const std::int64_t first_row = (std::int64_t(b) * stride + span.t0) * H + h;
  const unsigned slot_address = shared_address(slot);
#pragma unroll
  for (int g = 0; g < kMaxGroups; ++g) {
    if (g >= plan.num_groups) break;
    const StageGroup& group = plan.groups[g];
    // the chunk's first row in 64 bits once; a token's row and a piece in 32-bit offsets from it
    const std::int64_t start = first_row * group.row_bytes + std::int64_t(blockIdx.y) * group.block_bytes;
    const int token_bytes = H * group.row_bytes, pieces = span.length << group.piece_shift;
    const unsigned target = slot_address + group.smem_offset;
    // whole 16-byte pieces (every key vector) without a test of the size per copy
    const auto copy = [&](auto granule) {
      const int mask = (1 << group.piece_shift) - 1;
      for (int idx = thread; idx < pieces; idx += threads) {
        const int token = idx >> group.piece_shift, piece = (idx & mask) << group.granule_shift;
        const std::int64_t from = start + (token * token_bytes + piece);
        const unsigned to = target + token * plan.record_bytes + piece;
#pragma unroll
        for (int r = 0; r < kMaxRun; ++r)
          if (r < group.run)
            cp_async_to(to + r * group.segment_bytes, group.bases[r] + from,
                        decltype(granule)::value ? 16 : 1 << group.granule_shift);
      }
    };
    if (group.granule_shift == 4)
      copy(std::true_type{});
    else
      copy(std::false_type{});
  }
  cp_async_commit();
}

template <class T>
__device__ __forceinline__ const T* staged(const StagePlan& plan, const char* slot, int token, int segment) {
  return reinterpret_cast<const T*>(slot + token * plan.record_bytes + plan.segment_offsets[segment]);
}

// The ring over a sequence's chunks. acquire(i) makes chunk i readable by the whole block and puts chunk
// i + 1 in flight into the slot chunk i - 1 used. One barrier serves both: past it, every thread's copies of
// chunk i have landed and every thread is done with whatever it read of chunk i - 1 (its slot, and anything
// the block made of it), so chunk i + 1 may take that slot.
struct ChunkRing {
  const StagePlan& plan;
  char* slots;  // kStages * plan.slot_bytes()
  int chunks, b, h, T, H;
  bool reverse;
  int stride;  // tokens from one sequence's first row to the next's (stage_chunk)

  __device__ char* slot(int index) const { return slots + (index % kStages) * plan.slot_bytes(); }
  __device__ void prime() const { stage(0); }
  __device__ void acquire(int index) const {
    cp_async_wait<0>();
    __syncthreads();
    stage(index + 1);
  }

 private:
  __device__ void stage(int index) const {
    if (index < chunks)
      stage_chunk(plan, slot(index), chunk_span(index, chunks, T, reverse, plan.tokens), b, h, stride, H);
    else
      cp_async_commit();
  }
};

}  // namespace flabench::fused
