// The chunk step shared by the column passes: the block turns a staged chunk of raw token rows into float
// records once (key vectors padded for conflict-free float4 reads, decays exponentiated once per block,
// eight elements per thread at a time), and each lane then reads its keys of every vector per token.
#pragma once

#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/staging.cuh"

namespace flabench::fused {

// floats in one token's record: the key vectors, then the block's value-side slice
template <class Form>
__host__ __device__ constexpr int column_record_floats(int K, int block_columns) {
  return KeyVectors<Form>::count * padded_keys(K) + (block_columns + 3) / 4 * 4;
}

// The converted chunk, then one partial sum per thread, column and token: the reductions over K wait for the
// chunk's end, off the per-token critical path.
template <class Form>
__host__ __device__ constexpr int column_chunk_floats(int K, int block_columns, int threads) {
  return kChunk * column_record_floats<Form>(K, block_columns) + kChunk * kColumns * threads;
}

// The block converts the staged raw rows of the chunk's first `length` tokens into `chunk`; the last staged
// segment is the value-side slice.
template <class Form, class T>
__device__ void convert_column_chunk(const StagePlan& plan, const char* slot, int length, const Geometry& g,
                                     float* chunk) {
  using KV = KeyVectors<Form>;
  const int record = column_record_floats<Form>(g.K, g.block_columns());
  const int group_shift = log2_of(g.K / 8), group_mask = g.K / 8 - 1;
#pragma unroll
  for (int vec = 0; vec < KV::count; ++vec) {
    for (int idx = threadIdx.x; idx < (length << group_shift); idx += blockDim.x) {
      const int s = idx >> group_shift, group = idx & group_mask;
      float x[8];
      load8(staged<T>(plan, slot, s, vec) + group * 8, x);
      if (KV::per_key_gate && vec == KV::g) {
#pragma unroll
        for (int i = 0; i < 8; ++i) x[i] = __expf(x[i]);
      }
      const int first = group * 8;  // eight keys: one half of a lane's 16, or one lane's 8
      store8(chunk + s * record + vec * padded_keys(g.K) + first / kKeys * kPaddedKeys + first % kKeys, x);
    }
  }
  const int columns = g.block_columns();
  for (int idx = threadIdx.x; idx < length * columns; idx += blockDim.x) {
    const int s = idx / columns, c = idx - s * columns;
    chunk[s * record + KV::count * padded_keys(g.K) + c] = to_float(staged<T>(plan, slot, s, KV::count)[c]);
  }
  __syncthreads();
}

// The lanes of a column pass: lane = column group * KG + key group within the warp; a lane holds keys
// [k0, k0 + kKeys) of columns [v, v + kColumns). Lanes past the warp's column groups (small V) only help
// stage and convert.
struct ColumnLane {
  int column;     // the first of the lane's columns, within the block
  int key_group;  // which kKeys keys
  bool active;
  int k0, v;  // the first key and the first value column in the head

  __device__ explicit ColumnLane(const Geometry& g) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int group = lane / g.KG;
    key_group = lane % g.KG;
    active = group * kColumns < g.BV;
    column = warp * g.BV + (active ? group : 0) * kColumns;
    k0 = key_group * kKeys;
    v = blockIdx.y * g.block_columns() + column;
  }
};

// One lane's keys of every staged vector of a token, and its columns of the value-side slice.
template <class Form>
struct ColumnKeys {
  float q[kKeys], k[kKeys], decay[kKeys], a[kKeys], b[kKeys];
  float slice[kColumns];

  __device__ void load(const float* record, const Geometry& g, const ColumnLane& lane, float head_decay) {
    using KV = KeyVectors<Form>;
    const float* base = record + lane.key_group * kPaddedKeys;
    load_floats(q, base + KV::q * padded_keys(g.K));
    load_floats(k, base + KV::k * padded_keys(g.K));
    if constexpr (KV::per_key_gate) {
      load_floats(decay, base + KV::g * padded_keys(g.K));
    } else {
#pragma unroll
      for (int i = 0; i < kKeys; ++i) decay[i] = head_decay;
    }
    if constexpr (KV::low_rank) {
      load_floats(a, base + KV::a * padded_keys(g.K));
      load_floats(b, base + KV::b * padded_keys(g.K));
    }
    const float* slice_base = record + KeyVectors<Form>::count * padded_keys(g.K) + lane.column;
    if constexpr (kColumns % 4 == 0)
      load_floats(slice, slice_base);
    else
#pragma unroll
      for (int c = 0; c < kColumns; ++c) slice[c] = slice_base[c];
  }
};

// Where lane `thread` left its partial sum for column c of token s.
__device__ __forceinline__ float& column_partial(float* partials, int s, int c, int thread) {
  return partials[(s * kColumns + c) * blockDim.x + thread];
}

// The chunk's reductions over K: the warp sums the KG partials of each of its columns and tokens and hands
// (token, column within the block, sum) to `store`.
template <class Store>
__device__ void finish_column_sums(float* partials, int length, const Geometry& g, Store&& store) {
  __syncwarp();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int idx = lane; idx < length * g.BV; idx += 32) {
    const int s = idx / g.BV, in_warp = idx - s * g.BV;
    const int group = in_warp / kColumns, c = in_warp % kColumns;
    const int first = warp * 32 + group * g.KG;
    float sum = 0;
    for (int kg = 0; kg < g.KG; ++kg) sum += column_partial(partials, s, c, first + kg);
    store(s, warp * g.BV + in_warp, sum);
  }
}

// A lane's kKeys x kColumns block of a [K, V] fp32 state in global memory.
__device__ __forceinline__ void load_state_block(float (&S)[kKeys][kColumns], const float* state, int V,
                                                 const ColumnLane& lane) {
#pragma unroll
  for (int i = 0; i < kKeys; ++i)
#pragma unroll
    for (int c = 0; c < kColumns; ++c)
      S[i][c] = lane.active ? state[std::int64_t(lane.k0 + i) * V + lane.v + c] : 0;
}
__device__ __forceinline__ void store_state_block(float* state, const float (&S)[kKeys][kColumns], int V,
                                                  const ColumnLane& lane) {
  if (!lane.active) return;
#pragma unroll
  for (int i = 0; i < kKeys; ++i)
#pragma unroll
    for (int c = 0; c < kColumns; ++c) state[std::int64_t(lane.k0 + i) * V + lane.v + c] = S[i][c];
}

// One lane's kColumns values of a per-token [B, T, H, V] fp32 vector (a^T S or dS^T b), from key group 0.
__device__ __forceinline__ void store_columns(float* dst, const float (&x)[kColumns],
                                              const ColumnLane& lane) {
  if (!lane.active || lane.key_group != 0) return;
#pragma unroll
  for (int c = 0; c < kColumns; ++c) dst[lane.v + c] = x[c];
}

}  // namespace flabench::fused
