// The chunk step shared by the column passes: the block turns a staged chunk of raw token rows into float
// records once (key vectors padded for conflict-free float4 reads, decays exponentiated once per block,
// eight elements per thread at a time), and each lane then reads its KPT keys of every vector per token.
#pragma once

#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/staging.cuh"

namespace flabench::fused {

// floats in one token's record: the key vectors, then the block's value-side slice
template <class Form>
__host__ __device__ constexpr int column_record_floats(const Geometry& g) {
  return KeyVectors<Form>::count * padded_keys(g.K, g.KPT) + (g.block_columns() + 3) / 4 * 4;
}

// The converted chunk, then one partial sum per thread and token: the reductions over K wait for the chunk's
// end, off the per-token critical path.
template <class Form>
__host__ __device__ constexpr int column_chunk_floats(const Geometry& g) {
  return kChunk * column_record_floats<Form>(g) + kChunk * 32 * g.W;
}

// The block converts the staged raw rows of the chunk's first `length` tokens into `chunk`; the last staged
// segment is the value-side slice.
template <class Form, class T, int KPT>
__device__ void convert_column_chunk(const StagePlan& plan, const char* slot, int length, const Geometry& g,
                                     float* chunk) {
  using KV = KeyVectors<Form>;
  const int record = column_record_floats<Form>(g);
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
      const int first = group * 8;  // eight keys: a lane's KPT, or half of them
      store8(chunk + s * record + vec * padded_keys(g.K, KPT) + first / KPT * (KPT + 4) + first % KPT, x);
    }
  }
  const int columns = g.block_columns();
  for (int idx = threadIdx.x; idx < length * columns; idx += blockDim.x) {
    const int s = idx / columns, c = idx - s * columns;
    chunk[s * record + KV::count * padded_keys(g.K, KPT) + c] =
        to_float(staged<T>(plan, slot, s, KV::count)[c]);
  }
  __syncthreads();
}

// The lanes of a column pass: lane = column * KG + key group within the warp; a lane holds keys
// [k0, k0 + KPT) of one column. Lanes past the warp's BV columns (small V) only help stage and convert.
struct ColumnLane {
  int column;     // within the block
  int key_group;  // which KPT keys
  bool active;
  int k0, v;  // the first key, and the value column in the head

  __device__ explicit ColumnLane(const Geometry& g) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int in_warp = lane / g.KG;
    key_group = lane % g.KG;
    active = in_warp < g.BV;
    column = warp * g.BV + (active ? in_warp : 0);
    k0 = key_group * g.KPT;
    v = blockIdx.y * g.block_columns() + column;
  }
};

// One lane's keys of every staged vector of a token, and its column of the value-side slice.
template <class Form, int KPT>
struct ColumnKeys {
  float q[KPT], k[KPT], decay[KPT], a[KPT], b[KPT];
  float slice;

  __device__ void load(const float* record, const Geometry& g, const ColumnLane& lane, float head_decay) {
    using KV = KeyVectors<Form>;
    const int stride = padded_keys(g.K, KPT);
    const float* base = record + lane.key_group * (KPT + 4);
    load_floats(q, base + KV::q * stride);
    load_floats(k, base + KV::k * stride);
    if constexpr (KV::per_key_gate) {
      load_floats(decay, base + KV::g * stride);
    } else {
#pragma unroll
      for (int i = 0; i < KPT; ++i) decay[i] = head_decay;
    }
    if constexpr (KV::low_rank) {
      load_floats(a, base + KV::a * stride);
      load_floats(b, base + KV::b * stride);
    }
    slice = record[KV::count * stride + lane.column];
  }
};

// The chunk's reductions over K: the warp sums the KG partials of each of its columns and tokens (lane t left
// its partial of token s in partials[s * blockDim.x + t]) and hands (token, column within the block, sum) to
// `store`.
template <class Store>
__device__ void finish_column_sums(const float* partials, int length, const Geometry& g, Store&& store) {
  __syncwarp();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int idx = lane; idx < length * g.BV; idx += 32) {
    const int s = idx / g.BV, in_warp = idx - s * g.BV;
    const float* first = partials + s * blockDim.x + warp * 32 + in_warp * g.KG;
    float sum = 0;
    for (int kg = 0; kg < g.KG; ++kg) sum += first[kg];
    store(s, warp * g.BV + in_warp, sum);
  }
}

// A lane's KPT keys of its column of a [K, V] fp32 state in global memory.
template <int KPT>
__device__ __forceinline__ void load_state_column(float (&S)[KPT], const float* state, int V,
                                                  const ColumnLane& lane) {
#pragma unroll
  for (int i = 0; i < KPT; ++i) S[i] = lane.active ? state[std::int64_t(lane.k0 + i) * V + lane.v] : 0.0f;
}
template <int KPT>
__device__ __forceinline__ void store_state_column(float* state, const float (&S)[KPT], int V,
                                                   const ColumnLane& lane) {
  if (!lane.active) return;
#pragma unroll
  for (int i = 0; i < KPT; ++i) state[std::int64_t(lane.k0 + i) * V + lane.v] = S[i];
}

}  // namespace flabench::fused
