// Pieces gsa's fused_recurrent scans share: the conversion of a staged chunk's raw rows to fp32, the two ways
// a state is read (StateLayout) and a thread's place in them, the chunk loop, the steps of a column, a chunk
// of steps with its partials, and the column sums left to a chunk's end (the softmax in softmax_rows.cuh).
#pragma once

#include <type_traits>

#include "kernels/common/dtype_traits.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/fused_recurrent/staging.cuh"
#include "kernels/gsa/pointers.cuh"
#include "kernels/gsa/softmax_rows.cuh"

namespace flabench::gsa {

using fused::kChunk;  // tokens staged at a time

// Converts `length` tokens of `count` (a power of two) staged elements each into fp32 rows, by threads
// [thread, thread + threads) of the block; `exponent` takes exp of each value (the decays).
template <class T>
__device__ void convert_rows(const fused::StagePlan& stage, const char* slot, int segment, int length,
                             int count, float* out, int thread, int threads, bool exponent = false) {
  const int shift = __ffs(count) - 1;
  for (int idx = thread; idx < (length << shift); idx += threads) {
    const float x = to_float(fused::staged<T>(stage, slot, idx >> shift, segment)[idx & (count - 1)]);
    out[idx] = exponent ? exp_flushed(x) : x;
  }
}

// A thread's share of a state held column by column: `groups` threads per column, each kRows elements of it.
// Threads past the block's `columns` take column 0 and write nothing.
struct ColumnThread {
  bool writes;
  int column, group;
  __device__ ColumnThread(unsigned tid, int columns, int groups)
      : writes(int(tid) < columns * groups), column(writes ? tid / groups : 0), group(tid % groups) {}
};

// Calls fn(std::integral_constant<int, rows>) for the rows (elements of a column per thread) a plan picked:
// a power of two from kFewest (4 or 8; a kernel is instantiated for each) to 32.
template <int kFewest, class Fn>
void with_rows(int rows, Fn&& fn) {
  if constexpr (kFewest <= 4) {
    if (rows == 4) return fn(std::integral_constant<int, 4>{});
  }
  if (rows == 8)
    fn(std::integral_constant<int, 8>{});
  else if (rows == 16)
    fn(std::integral_constant<int, 16>{});
  else
    fn(std::integral_constant<int, 32>{});
}

// Runs body(span, rows) over the chunks of the block's (batch, head) = blockIdx.x in order (last to first
// when `reverse`), each chunk's raw rows staged (fused::ChunkRing: the next chunk in flight while the block
// works on this one).
template <class Body>
__device__ void for_each_staged_chunk(const fused::StagePlan& stage, char* ring_base, const Dims& d,
                                      Body&& body, bool reverse = false) {
  const int bh = blockIdx.x, chunks = (d.T + kChunk - 1) / kChunk;
  const fused::ChunkRing ring{stage, ring_base, chunks, bh / d.H, bh % d.H, d.T, d.H, reverse, d.T};
  ring.prime();
  for (int index = 0; index < chunks; ++index) {
    ring.acquire(index);
    body(fused::chunk_span(index, chunks, d.T, reverse), static_cast<const char*>(ring.slot(index)));
  }
}

// One of the two states (or its gradient) as a function of (x, m), slot m and x a key (Hk, X = K) or a value
// (Hv, X = V): element (x, m) of head bh lies at head(bh) + x * x_stride + m * m_stride. The scans read it
// as slot vectors (X elements of slot m, x_stride apart) or as vectors over the slots (m_stride apart).
struct StateLayout {
  int X, M, x_stride, m_stride;
  __host__ __device__ std::int64_t head(int bh) const { return std::int64_t(bh) * X * M; }
  __host__ __device__ std::int64_t at(int bh, int x, int m) const {
    return head(bh) + std::int64_t(x) * x_stride + std::int64_t(m) * m_stride;
  }
};
// A thread's kRows elements [group * kRows, + kRows) of slot m0 + column's vector (the slot scan and its
// gradient): `offset` from the start of a head's state (or checkpoint), `stride` apart.
template <int kRows>
struct ElementsOfSlot : ColumnThread {
  int stride;
  std::int64_t offset;
  __device__ ElementsOfSlot(const StateLayout& layout, int columns, int m0)
      : ColumnThread(threadIdx.x, columns, layout.X / kRows),
        stride(layout.x_stride),
        offset(layout.at(0, group * kRows, m0 + column)) {}
};

// A thread's kRows slots [group * kRows, + kRows) of column x0 + column of a state read as vectors over
// the slots (the slot mix and its gradient), in the block's (batch, head) blockIdx.x.
template <int kRows>
struct SlotsOfColumn : ColumnThread {
  int stride;         // between its slots
  std::int64_t base;  // its first slot
  __device__ SlotsOfColumn(const StateLayout& layout, int columns, int x0)
      : ColumnThread(threadIdx.x, columns, layout.M / kRows),
        stride(layout.m_stride),
        base(layout.at(blockIdx.x, x0 + column, group * kRows)) {}
};

// Where head bh's state before chunk `chunk` of `chunks` starts among a slot scan's checkpoints ([B*H,
// chunks] states of `state_size` = X x M floats): the slot scan writes it there, its gradient reads it.
__device__ __forceinline__ std::int64_t checkpoint_start(int bh, int chunk, std::int64_t chunks,
                                                         std::int64_t state_size) {
  return (bh * chunks + chunk) * state_size;
}
inline StateLayout keys_by_slots(const Problem& p) {  // Hk [K, M]
  return {int(p.K), int(p.M), int(p.M), 1};
}
inline StateLayout slots_by_values(const Problem& p) {  // Hv [M, V]
  return {int(p.V), int(p.M), 1, int(p.V)};
}

// A column's kRows elements, `stride` apart in a state in global memory.
template <int kRows>
__device__ __forceinline__ void load_column(float (&state)[kRows], const float* from, int stride) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) state[r] = from[std::int64_t(r) * stride];
}
template <int kRows>
__device__ __forceinline__ void store_column(float* to, const float (&state)[kRows], int stride) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) to[std::int64_t(r) * stride] = state[r];
}

// sum_r state[r] * x[r], in four chains.
template <int kRows>
__device__ __forceinline__ float column_dot(const float (&state)[kRows], const float* x) {
  float acc[4] = {0, 0, 0, 0};
#pragma unroll
  for (int r = 0; r < kRows; ++r) acc[r % 4] = fmaf(state[r], x[r], acc[r % 4]);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// A slot scan's step of a slot's vector (Hk's column of slot m, or Hv's row): it decays by the slot's e and
// gains s x. The slot-scan gradient recomputes the forward's states with it, so they match bit for bit.
template <int kRows>
__device__ __forceinline__ void step_slot_vector(float (&state)[kRows], float e, float s, const float* x) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) state[r] = fmaf(state[r], e, x[r] * s);
}

// A slot mix's step of a column over the slots (Hv's column of value v, or Hk's row of key v): each slot
// decays by its own e and gains s v.
template <int kRows>
__device__ __forceinline__ void step_value_column(float (&state)[kRows], const float* e, const float* s,
                                                  float v) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) state[r] = fmaf(e[r], state[r], s[r] * v);
}

// A chunk of steps, forward or backward in time: step(t, sink) steps a thread's column through token t and
// hands sink(i, partial) its `count` partials of the token (one per query head, or one), kept at
// parts[(t * count + i) * blockDim.x + threadIdx.x] for the chunk's end. A full chunk of one partial per
// token runs unrolled with the partials in registers until the end: no shared-memory store between two
// tokens holds the next token's reads behind it (one warp per scheduler at few heads has nothing else to
// issue meanwhile). Up to 16 rows per thread: past that the unrolled chunk spills.
template <int kRows, bool kReverse, class Step>
__device__ __forceinline__ void step_chunk(int length, int count, float* parts, Step&& step) {
  if (kRows <= 16 && count == 1 && length == kChunk) {
    float sums[kChunk];
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
      const int t = kReverse ? kChunk - 1 - i : i;
      step(t, [&](int, float partial) { sums[t] = partial; });
    }
#pragma unroll
    for (int t = 0; t < kChunk; ++t) parts[t * blockDim.x + threadIdx.x] = sums[t];
    return;
  }
  for (int i = 0; i < length; ++i) {
    const int t = kReverse ? length - 1 - i : i;
    step(t, [&](int at, float partial) { parts[(t * count + at) * blockDim.x + threadIdx.x] = partial; });
  }
}

// The chunk's column sums, left to its end: parts[row * blockDim.x + thread] holds a thread's partial of
// row `row` (token x query head); store(row, column, sum) gets each column's `groups` partials added.
template <class Store>
__device__ void finish_column_sums(const float* parts, int rows, int columns, int groups, Store&& store) {
  for (int idx = threadIdx.x; idx < rows * columns; idx += blockDim.x) {
    const int row = idx / columns, column = idx % columns;
    const float* part = parts + row * blockDim.x + column * groups;
    float sum = 0;
    for (int group = 0; group < groups; ++group) sum += part[group];
    store(row, column, sum);
  }
}

}  // namespace flabench::gsa
