// The chunk step shared by the column passes: the block turns a staged chunk of raw token rows into float
// records once (key vectors padded for conflict-free float4 reads, decays exponentiated once per block,
// eight elements per thread at a time), and each lane then reads its KPT keys of every vector per token.
#pragma once

#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/staging.cuh"
#include "kernels/common/lane_sum.cuh"

namespace flabench::fused {

// One token's record: the key vectors, then the block's value-side slice, then (for the bonus) the token's
// q . (u o k), which multiplies the slice in o_t and dv_t.
template <class Form>
__host__ __device__ constexpr int slice_offset(const Geometry& g) {
  return KeyVectors<Form>::count * padded_keys(g.K, g.KPT);
}
template <class Form>
__host__ __device__ constexpr int bonus_offset(const Geometry& g) {
  return slice_offset<Form>(g) + (g.block_columns() + 3) / 4 * 4;
}
template <class Form>
__host__ __device__ constexpr int column_record_floats(const Geometry& g) {
  return bonus_offset<Form>(g) + (Form::value.bonus ? 4 : 0);
}

// The converted chunk, then one partial sum per thread and token: the reductions over K wait for the chunk's
// end, off the per-token critical path.
template <class Form>
__host__ __device__ constexpr int column_chunk_floats(const Geometry& g) {
  return kChunk * column_record_floats<Form>(g) + kChunk * 32 * g.W * g.CPL;
}

// Where key `key` of a staged vector sits among its padded groups of KPT.
template <int KPT>
__device__ __forceinline__ unsigned key_offset(unsigned key) {
  return key / KPT * key_group_stride(KPT) + key % KPT;
}

// The bonus u of the eight keys this thread converts in every chunk (the block's thread count is a multiple
// of K / 8, so a thread's group of keys never changes); nothing without a bonus.
template <class Form>
struct BonusKeys {
  float u[Form::value.bonus ? 8 : 1];
  template <class T>
  __device__ BonusKeys(const T* bonus, int h, const Geometry& g) {
    if constexpr (Form::value.bonus) {
      const int first = (threadIdx.x & (g.K / 8 - 1)) * 8;
#pragma unroll
      for (int i = 0; i < 8; ++i) u[i] = to_float(bonus[h * g.K + first + i]);
    }
  }
};

// The block converts the staged raw rows of the chunk's first `length` tokens into `chunk`: a thread takes
// eight keys of one token at a time, of every key vector (one set of addresses for all of them); the last
// staged segment is the value-side slice.
template <class Form, class T, int KPT>
__device__ void convert_column_chunk(const StagePlan& plan, const char* slot, int length, const Geometry& g,
                                     const BonusKeys<Form>& bonus, float* chunk) {
  using KV = KeyVectors<Form>;
  const int record = column_record_floats<Form>(g), stride = padded_keys(g.K, KPT);
  const int group_shift = g.group_shift, group_mask = g.K / 8 - 1, items = length << group_shift;
  // every thread takes the same number of trips: the bonus's sum over a token's K / 8 threads (neighbouring
  // lanes) shuffles
  for (int base = 0; base < items; base += blockDim.x) {
    const int idx = base + threadIdx.x, s = idx >> group_shift;
    const unsigned first = (idx & group_mask) * 8;
    float* row = chunk + s * record;
    float q[8], bonus_part = 0;
    if (idx < items) {
#pragma unroll
      for (int vec = 0; vec < KV::count; ++vec) {
        float x[8];
        load8(staged<T>(plan, slot, s, vec) + first, x);
        if (KV::per_key_gate && vec == KV::g) {
#pragma unroll
          for (int i = 0; i < 8; ++i) x[i] = exp_flushed(x[i]);
        }
        if (Form::value.bonus && vec == KV::q) {
#pragma unroll
          for (int i = 0; i < 8; ++i) q[i] = x[i];
        }
        if (Form::value.bonus && vec == KV::k) {  // q . (u o k) over these eight keys
#pragma unroll
          for (int i = 0; i < 8; ++i) bonus_part = fmaf(q[i] * bonus.u[i], x[i], bonus_part);
        }
#pragma unroll
        for (int j = 0; j < 8; j += 4)  // a lane's keys (KPT 8), half of them (16) or two lanes' (4)
          *reinterpret_cast<float4*>(row + vec * stride + key_offset<KPT>(first + j)) =
              make_float4(x[j], x[j + 1], x[j + 2], x[j + 3]);
      }
    }
    if constexpr (Form::value.bonus) {
      bonus_part = sum_over_lanes(bonus_part, g.K / 8);
      if (idx < items && first == 0) row[bonus_offset<Form>(g)] = bonus_part;
    }
  }
  const int columns = g.block_columns(), column_shift = g.column_shift;
  for (int idx = threadIdx.x; idx < length * columns; idx += blockDim.x) {
    const int s = idx >> column_shift, c = idx & (columns - 1);
    chunk[s * record + slice_offset<Form>(g) + c] = to_float(staged<T>(plan, slot, s, KV::count)[c]);
  }
  __syncthreads();
}

// The lanes of a column pass: lane = column slot * KG + key group within the warp; a lane holds keys
// [k0, k0 + KPT) of the CPL neighbouring columns from `column`. Lanes past the warp's BV columns (small V)
// only help stage and convert.
struct ColumnLane {
  int column;     // the first of the lane's columns, within the block
  int key_group;  // which KPT keys
  bool active;
  int k0, v;  // the first key, and the first column in the head

  __device__ explicit ColumnLane(const Geometry& g) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int slot = lane / g.KG;
    key_group = lane % g.KG;
    active = slot * g.CPL < g.BV;
    column = warp * g.BV + (active ? slot * g.CPL : 0);
    k0 = key_group * g.KPT;
    v = blockIdx.y * g.block_columns() + column;
  }
};

// One lane's keys of every staged vector of a token, and its columns of the value-side slice.
template <class Form, int KPT, int CPL>
struct ColumnKeys {
  static constexpr int keys = KPT;
  float q[KPT], k[KPT], decay[KPT], a[KPT], b[KPT];
  float slice[CPL];

  __device__ void load(const float* record, const Geometry& g, const ColumnLane& lane, float head_decay) {
    using KV = KeyVectors<Form>;
    const int stride = padded_keys(g.K, KPT);
    const float* base = record + lane.key_group * key_group_stride(KPT);
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
#pragma unroll
    for (int m = 0; m < CPL; ++m) slice[m] = record[slice_offset<Form>(g) + lane.column + m];
  }
};

// Runs step(x, s) over the chunk's tokens s = 0 .. length - 1 (backwards when `reverse`), x holding token
// s's keys as load(x, s) fills them. With few keys per lane a warp is alone on its scheduler: the next
// token's loads go out before this token's arithmetic. At 16 keys (K > 64) several warps share a scheduler
// and hide the loads' latency, and a second set of token registers would cost a resident block per SM.
template <class Keys, class Load, class Step>
__device__ __forceinline__ void scan_chunk_tokens(int length, bool reverse, Load&& load, Step&& step) {
  const auto token = [&](int i) { return reverse ? length - 1 - i : i; };
  if constexpr (Keys::keys >= 16) {
    for (int i = 0; i < length; ++i) {
      Keys x;
      load(x, token(i));
      step(x, token(i));
    }
  } else {
    Keys even, odd;
    load(even, token(0));
    for (int i = 0; i < length; i += 2) {
      if (i + 1 < length) load(odd, token(i + 1));
      step(even, token(i));
      if (i + 1 < length) {
        if (i + 2 < length) load(even, token(i + 2));
        step(odd, token(i + 1));
      }
    }
  }
}

// Where a lane leaves its partial sum over its keys of token s and its column m (of CPL): per token and
// column, the KG lanes of a column slot are neighbours.
__device__ __forceinline__ int partial_index(int s, int m, const Geometry& g) {
  return (s * g.CPL + m) * blockDim.x + threadIdx.x;
}

// The chunk's reductions over K: the warp sums the KG partials of each of its columns and tokens and hands
// (token, column within the block, sum) to `store`.
template <class Store>
__device__ void finish_column_sums(const float* partials, int length, const Geometry& g, Store&& store) {
  __syncwarp();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int column_shift = __ffs(g.BV) - 1, lane_shift = __ffs(g.CPL) - 1;  // powers of two
  for (int idx = lane; idx < length * g.BV; idx += 32) {
    const int s = idx >> column_shift, in_warp = idx & (g.BV - 1);
    const int slot = in_warp >> lane_shift, m = in_warp & (g.CPL - 1);
    const float* first = partials + (s * g.CPL + m) * blockDim.x + warp * 32 + slot * g.KG;
    float sum = 0;
    if (g.KG % 4 == 0) {  // the partials of a column are 16-byte aligned then
      for (int kg = 0; kg < g.KG; kg += 4) {
        const float4 four = *reinterpret_cast<const float4*>(first + kg);
        sum += (four.x + four.y) + (four.z + four.w);
      }
    } else {
      for (int kg = 0; kg < g.KG; ++kg) sum += first[kg];
    }
    store(s, warp * g.BV + in_warp, sum);
  }
}

// A lane's KPT keys of its columns of a [K, V] fp32 state in global memory (S[m]: column v + m).
template <int KPT, int CPL>
__device__ __forceinline__ void load_state_columns(float (&S)[CPL][KPT], const float* state, int V,
                                                   const ColumnLane& lane) {
#pragma unroll
  for (int m = 0; m < CPL; ++m)
#pragma unroll
    for (int i = 0; i < KPT; ++i)
      S[m][i] = lane.active ? state[std::int64_t(lane.k0 + i) * V + lane.v + m] : 0.0f;
}
template <int KPT, int CPL>
__device__ __forceinline__ void store_state_columns(float* state, const float (&S)[CPL][KPT], int V,
                                                    const ColumnLane& lane) {
  if (!lane.active) return;
#pragma unroll
  for (int m = 0; m < CPL; ++m)
#pragma unroll
    for (int i = 0; i < KPT; ++i) state[std::int64_t(lane.k0 + i) * V + lane.v + m] = S[m][i];
}

}  // namespace flabench::fused
