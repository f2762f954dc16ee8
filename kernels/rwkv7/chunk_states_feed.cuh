// How the tensor-core state passes' scanning warps (chunk_states_mma.cuh, chunk_backward_states_mma.cuh) get
// each chunk's operands, in one of two ways:
// - by the block: every thread issues the next chunk's copies between its scan steps (await_operands and
//   refill_operands, chunk_states.cuh);
// - by copy warps of their own, as many as the scan's: they issue chunk i + buffers's copies while the scan
//   works on chunk i, so the copies' instructions (~6 a 16-byte cp.async, ~40% of a chunk's on the scan's
//   warps at few heads by v40's ncu, where a chunk's time is its warp's instruction count: v37) leave the
//   scan's path. Named barriers hand a buffer over: `full` once every copy warp's copies into it have
//   landed, `empty` once the scanning warps are done with it (the fused_recurrent column passes' converter
//   warps hand their records over the same way, column_feed.cuh). kernels/notes/rwkv7_chunk.md, v44.
#pragma once

#include "kernels/common/cp_async.cuh"
#include "kernels/common/named_barrier.cuh"
#include "kernels/rwkv7/chunk_states.cuh"

namespace flabench::rwkv7 {

// kScanThreads: the scanning warps' threads (the first of the block's); kCopyWarps: whether as many copy
// threads follow them. `chunks` in the scan's order; `buffers` 1 or 2.
template <int kScanThreads, bool kCopyWarps>
struct StateFeed {
  int chunks, buffers;

  // The calling thread's number among those that issue copies, and whether it only copies.
  __device__ static int copy_thread() { return kCopyWarps ? int(threadIdx.x) - kScanThreads : threadIdx.x; }
  __device__ static bool is_copier() { return kCopyWarps && int(threadIdx.x) >= kScanThreads; }

  // A barrier of the scanning warps alone (the copy warps run apart).
  __device__ static void sync() {
    if constexpr (kCopyWarps)
      NamedBarrier{1, kScanThreads}.sync();
    else
      __syncthreads();
  }

  // Chunk i's operands readable by the scanning warps, which are synchronised on return. fetch(i) issues
  // chunk i's copies (the block's way).
  template <class Fetch>
  __device__ void acquire(int i, const Fetch& fetch) const {
    if constexpr (kCopyWarps)
      full(i).sync();
    else
      await_operands(i, chunks, buffers, fetch);
  }

  // The scanning warps are done with chunk i's buffer (after a sync()).
  template <class Fetch>
  __device__ void release(int i, const Fetch& fetch) const {
    if constexpr (kCopyWarps) {
      if (i + buffers < chunks) empty(i).arrive();
    } else {
      refill_operands(i, chunks, buffers, fetch);
    }
  }

  // The copy warps' loop: chunks 0 .. buffers - 1 at once, then chunk i + buffers into chunk i's buffer once
  // the scan has released it. Every chunk is handed over as soon as this thread's copies of it have landed
  // (every copy thread arrives, so `full` completes when all have), before the copier waits for a buffer: the
  // scan, done with chunk i, finds chunk i + 1 handed over already rather than behind chunk i + 2's copies.
  template <class Fetch>
  __device__ void run_copier(const Fetch& fetch) const {
    if constexpr (kCopyWarps) {
      for (int i = 0; i < buffers && i < chunks; ++i) fetch(i);
      int handed = 0;  // chunks handed over
      for (int i = 0; i < chunks; ++i) {
        cp_async_commit();  // every copy issued so far, landed
        cp_async_wait<0>();
        for (; handed < chunks && handed < i + buffers; ++handed) full(handed).arrive();
        if (i + buffers < chunks) {
          empty(i).sync();
          fetch(i + buffers);
        }
      }
    }
  }

 private:
  static constexpr int kThreads = 2 * kScanThreads;
  __device__ NamedBarrier full(int i) const { return {2 + (i & (buffers - 1)), kThreads}; }
  __device__ NamedBarrier empty(int i) const { return {4 + (i & (buffers - 1)), kThreads}; }
};

}  // namespace flabench::rwkv7
