// How a column pass's warps get each chunk's converted records (column_chunk.cuh), in one of two ways:
// - by the block: every thread stages and converts chunk i, then all of them scan it (a barrier on each
// side);
// - by kConverterWarps warps of their own beside the W scanning warps (ColumnPass::converters: wide chunks at
//   16 keys a lane, and forwards at 4 keys a lane; variant.cuh): they convert chunk i + 1 into the second of
//   two record buffers while the scan reads chunk i, and stage chunk i + 2, so the conversion (12% of the
//   D = 128 forward's instructions, 19% of its stall samples when the block did it; 23% and 24% of rwkv7's
//   forward at 1,24576,16,64) leaves the scan's path. Named barriers hand a buffer over: `full` when the
//   converters have filled it, `empty` when the scanning warps are done with it
//   (kernels/notes/fused_recurrent.md, versions 50 and 69).
#pragma once

#include "kernels/common/cp_async.cuh"
#include "kernels/common/fused_recurrent/column_chunk.cuh"
#include "kernels/common/named_barrier.cuh"

namespace flabench::fused {

// Where a scanning warp finds chunk `index` (ColumnFeed::begin_chunk): its tokens, its records (`shift`
// floats from the first buffer) and the row of its first token in the tensors (a later token's row is
// token_stride elements of values on).
struct ScanChunk {
  ChunkSpan span;
  int shift;
  const float* records;
  std::int64_t first_row;
  int token_stride;
};

// kConverter: whether the block has converter warps (kernels whose block converts carry no converter code).
// The geometry comes with each call, as the kernel's parameter: a copy held here would cost the kernels
// registers or local memory.
template <class Form, class T, int KPT, bool kConverter>
class ColumnFeed {
 public:
  __device__ ColumnFeed(const StagePlan& plan, char* smem, const Geometry& g, int b, int h, bool reverse)
      : ring_{plan, smem, g.column_chunks, b, h, g.T, g.H, reverse, g.sequence_stride} {}

  // Buffers of records after the staging ring (`records`: the first; then the scanning lanes' partial
  // sums), buffer_floats(g) floats each; chunk `index`'s records are offset(index, g) floats from the first.
  static constexpr int kBuffers = kConverter ? 2 : 1;
  __device__ static int buffer_floats(const Geometry& g) {
    return g.column_tokens * ColumnRecord<Form, T>::floats(g, KPT);
  }
  __device__ static int offset(int index, const Geometry& g) {
    return kConverter ? (index & 1) * buffer_floats(g) : 0;
  }

  // Whether the calling warp is a converter; it then runs the whole feed in run_converter() and leaves.
  __device__ static bool is_converter(const Geometry& g) {
    return kConverter && int(threadIdx.x >> 5) >= g.W;
  }

  // The scanning warps' (or, without converters, the whole block's) first step: start staging chunk 0.
  __device__ void prime() const {
    if constexpr (!kConverter) ring_.prime();
  }

  // Chunk `index` (in visiting order) in two steps, so that the caller may issue loads of its own between
  // them: acquire() waits for its staged rows (block) or its records (converters); convert() makes the
  // block's records of its first `length` tokens in `records` (nothing with converters). After both, the
  // records are readable.
  __device__ void acquire(int index, const Geometry& g) const {
    if constexpr (kConverter)
      full(index, g).sync();
    else
      ring_.acquire(index);
  }
  __device__ void convert(int index, int length, const Geometry& g, const BonusKeys<Form>& bonus,
                          float* records) const {
    if constexpr (!kConverter) {
      convert_column_chunk<Form, T, KPT>(ring_.plan, ring_.slot(index), length, g, bonus, records,
                                         threadIdx.x, blockDim.x);
      __syncthreads();
    }
  }

  // A scanning warp's start of chunk `index`: acquire(), the caller's own loads for it (`between`), convert()
  // into `records`; then where the chunk's tokens and records are.
  template <class Between>
  __device__ ScanChunk begin_chunk(int index, const Geometry& g, const BonusKeys<Form>& bonus, float* records,
                                   Between&& between) const {
    acquire(index, g);
    const ChunkSpan tokens = span(index, g);
    between();
    convert(index, tokens.length, g, bonus, records);
    const int shift = offset(index, g);
    return {tokens, shift, records + shift, token_row(ring_.b, tokens.t0, ring_.h, g), g.H * g.V};
  }

  // The scanning warps are done with chunk `index`'s records (without converters the block's next
  // acquire() orders that).
  __device__ void release(int index, const Geometry& g) const {
    if (kConverter && index + 2 < g.column_chunks) empty(index, g).arrive();
  }

  // The converter warps' loop: chunk i is converted once its copies have landed and the scanning warps have
  // released its buffer (that of chunk i - 2); then its slot of the ring takes chunk i + 2.
  __device__ void run_converter(const Geometry& g, const BonusKeys<Form>& bonus, float* records) const {
    if constexpr (kConverter) {
      const int thread = threadIdx.x - 32 * g.W, threads = 32 * kConverterWarps;
      const NamedBarrier converters{5, threads};
      stage(0, g, thread, threads);
      stage(1, g, thread, threads);
      for (int index = 0; index < g.column_chunks; ++index) {
        cp_async_wait<1>();  // chunk index's copies (chunk index + 1's may be in flight)
        converters.sync();   // ... of every converter thread
        if (index >= 2) empty(index, g).sync();
        convert_column_chunk<Form, T, KPT>(ring_.plan, ring_.slot(index), span(index, g).length, g, bonus,
                                           records + offset(index, g), thread, threads);
        converters.sync();  // every converter's reads of the slot done
        stage(index + 2, g, thread, threads);
        full(index, g).arrive();
      }
    }
  }

 private:
  __device__ ChunkSpan span(int index, const Geometry& g) const {
    return chunk_span(index, g.column_chunks, g.T, ring_.reverse, g.column_tokens);
  }
  __device__ static NamedBarrier full(int index, const Geometry& g) {
    return {1 + (index & 1), 32 * (g.W + kConverterWarps)};
  }
  __device__ static NamedBarrier empty(int index, const Geometry& g) {
    return {3 + (index & 1), 32 * (g.W + kConverterWarps)};
  }
  // The converters' copies of chunk `index` into its slot, as one commit group (empty past the end).
  __device__ void stage(int index, const Geometry& g, int thread, int threads) const {
    if (index < g.column_chunks)
      stage_chunk(ring_.plan, ring_.slot(index), span(index, g), ring_.b, ring_.h, g.sequence_stride, g.H,
                  thread, threads);
    else
      cp_async_commit();
  }

  const ChunkRing ring_;
};

}  // namespace flabench::fused
