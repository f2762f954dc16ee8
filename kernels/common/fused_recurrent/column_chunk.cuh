// The chunk step shared by the column passes: the block turns a staged chunk of raw token rows into float
// records once (decays exponentiated once per block, eight elements per thread at a time), and each lane then
// reads its KPT keys of every key vector per token from one place: a record keeps each key group's keys of
// all vectors side by side (column_record.h: padded for conflict-free float4 reads, bf16 keys packed).
#pragma once

#include <type_traits>

#include "kernels/common/constant_dispatch.h"
#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/staging.cuh"
#include "kernels/common/lane_sum.cuh"

namespace flabench::fused {

// The bonus u of the eight keys this thread converts in every chunk (the converting threads' count, and the
// first one's index, are multiples of K / 8, so a thread's group of keys never changes); nothing without a
// bonus.
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

// Threads [0, threads) (numbered `thread`: the block, or its converter warps) convert the staged raw rows of
// the chunk's first `length` tokens into `chunk`: a thread takes eight keys of one token at a time, of every
// key vector (one set of addresses for all of them); the last staged segment is the value-side slice. The
// caller synchronises the readers.
template <class Form, class T, int KPT>
__device__ void convert_column_chunk(const StagePlan& plan, const char* slot, int length, const Geometry& g,
                                     const BonusKeys<Form>& bonus, float* chunk, int thread, int threads) {
  using KV = KeyVectors<Form>;
  using R = ColumnRecord<Form, T>;
  const int record = R::floats(g, KPT);
  const int group_shift = g.group_shift, group_mask = g.K / 8 - 1, items = length << group_shift;
  // every thread takes the same number of trips: the bonus's sum over a token's K / 8 threads (neighbouring
  // lanes) shuffles
  for (int base = 0; base < items; base += threads) {
    const int idx = base + thread, s = idx >> group_shift;
    const unsigned first = (idx & group_mask) * 8;
    float* row = chunk + s * record;
    // where the thread's eight keys of vector `vec` go (KPT 8: a lane's keys; 16: half of them; 4: two
    // lanes')
    const auto at = [&](int vec, unsigned key) {
      return row + key / KPT * R::group_floats(KPT) + R::vector_offset(vec, KPT) +
             key % KPT / (R::packed_vector(vec, KPT) ? 2 : 1);
    };
    float q[8], bonus_part = 0;
    if (idx < items) {
#pragma unroll
      for (int vec = 0; vec < KV::count; ++vec) {
        const T* raw = staged<T>(plan, slot, s, vec) + first;
        float x[8];
        if (R::packed_vector(vec, KPT))  // the raw bf16 (a multiple of 16 bytes: never a partial lane's)
          *reinterpret_cast<uint4*>(at(vec, first)) = *reinterpret_cast<const uint4*>(raw);
        if (!R::packed_vector(vec, KPT) || (Form::value.bonus && (vec == KV::q || vec == KV::k)))
          load8(raw, x);
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
        if (!R::packed_vector(vec, KPT)) {
#pragma unroll
          for (int j = 0; j < 8; j += 4) {
            const float4 four = make_float4(x[j], x[j + 1], x[j + 2], x[j + 3]);
            *reinterpret_cast<float4*>(at(vec, first + j)) = four;
          }
        }
      }
    }
    if constexpr (Form::value.bonus) {
      bonus_part = sum_over_lanes(bonus_part, g.K / 8);
      if (idx < items && first == 0) row[R::bonus_offset(g, KPT)] = bonus_part;
    }
  }
  // the slice (and a per-value gate's, exponentiated), eight values a thread where the block's columns come
  // in eights
  const int columns = g.block_columns();
  constexpr int kSlices = KV::per_value_gate ? 2 : 1;
#pragma unroll
  for (int which = 0; which < kSlices; ++which) {
    const int segment = KV::count + which;
    float* slices = chunk + (which == 0 ? R::slice_offset(g, KPT) : R::gate_offset(g, KPT));
    const auto convert = [&](float x) { return which == 0 ? x : exp_flushed(x); };
    if (columns % 8 == 0) {
      const int eights_shift = g.column_shift - 3;
      for (int idx = thread; idx < length << eights_shift; idx += threads) {
        const int s = idx >> eights_shift, c = (idx & ((1 << eights_shift) - 1)) * 8;
        float x[8];
        load8(staged<T>(plan, slot, s, segment) + c, x);
#pragma unroll
        for (int i = 0; i < 8; ++i) x[i] = convert(x[i]);
        store8(slices + s * record + c, x);
      }
    } else {
      for (int idx = thread; idx < length << g.column_shift; idx += threads) {
        const int s = idx >> g.column_shift, c = idx & (columns - 1);
        slices[s * record + c] = convert(to_float(staged<T>(plan, slot, s, segment)[c]));
      }
    }
  }
}

// A lane of a column pass (column_lane_place in layout.h). Key groups run in the lane's high bits so that a
// quarter warp reads few distinct pieces of a token's record: a 16-byte shared-memory read costs a warp 2
// wavefronts where each quarter reads at most two, 4 where each reads eight (measured on an H200, ncu;
// kernels/notes/fused_recurrent.md, version 64), and the key vectors' reads are most of the passes' shared
// traffic.
struct ColumnLane : ColumnLanePlace {
  __device__ explicit ColumnLane(const Geometry& g)
      : ColumnLanePlace(column_lane_place(g, int(threadIdx.x), int(blockIdx.y))) {}

  // The sum of x over the KG lanes that share this lane's columns (the whole warp must call it), KG known
  // when compiling: the shuffles then run without a branch per level, so ptxas can place other work in
  // their latency (kernels/notes/fused_recurrent.md, version 65).
  template <int KG>
  __device__ float sum_over_key_groups(float x) const {
    return sum_over_strided_lanes(x, 32 / KG);
  }
};

// scan(std::integral_constant<int, KG>) with the layout's key-group count for a low-rank form, whose passes
// sum over a column's key groups every token (ColumnLane::sum_over_key_groups<KG>); scan(0) for the others.
// The launch takes only layouts KeyGroupCounts covers (tests/kernels/fused_layout_test.cpp).
template <class Form, int KPT, class Scan>
__device__ __forceinline__ void with_key_groups(const Geometry& g, Scan&& scan) {
  if constexpr (Form::value.low_rank)
    with_one_of(KeyGroupCounts<KPT>{}, g.KG, scan);
  else
    scan(std::integral_constant<int, 0>{});
}

// KPT keys of one vector from a key group of a record: fp32, or packed bf16 (ColumnRecord).
template <int KPT, bool kPacked>
__device__ __forceinline__ void load_keys(float (&x)[KPT], const float* at) {
  if constexpr (kPacked) {
#pragma unroll
    for (int j = 0; j < KPT; j += 8) unpack_bf16x8(*reinterpret_cast<const uint4*>(at + j / 2), x + j);
  } else {
    load_floats(x, at);
  }
}

// One lane's keys of every staged vector of a token, and its columns of the value-side slice (and of a
// per-value gate's).
template <class Form, class T, int KPT, int CPL>
struct ColumnKeys {
  static constexpr int keys = KPT;
  float q[KPT], k[KPT], decay[KPT], a[KPT], b[KPT];
  float slice[CPL], column_decay[CPL];

  // The decay of key i of column m: per key (or head), or per column.
  __device__ float decay_of(int i, int m) const {
    if constexpr (KeyVectors<Form>::per_value_gate)
      return column_decay[m];
    else
      return decay[i];
  }

  template <int vec>
  __device__ static void vector(float (&x)[KPT], const float* keys_at) {
    using R = ColumnRecord<Form, T>;
    constexpr int offset = R::vector_offset(vec, KPT);
    load_keys<KPT, R::packed_vector(vec, KPT)>(x, keys_at + offset);
  }

  // `keys_at`: the lane's key group in the token's record; `slice_at`: its first column there; `gate_at`:
  // its first column of a per-value gate's slice (unread otherwise).
  __device__ void load(const float* keys_at, const float* slice_at, float head_decay,
                       const float* gate_at = nullptr) {
    using KV = KeyVectors<Form>;
    vector<KV::q>(q, keys_at);
    vector<KV::k>(k, keys_at);
    if constexpr (KV::per_key_gate) {
      vector<KV::g>(decay, keys_at);
    } else {
#pragma unroll
      for (int i = 0; i < KPT; ++i) decay[i] = head_decay;
    }
    if constexpr (KV::low_rank) {
      vector<KV::a>(a, keys_at);
      vector<KV::b>(b, keys_at);
    }
    columns(slice, slice_at);
    if constexpr (KV::per_value_gate) columns(column_decay, gate_at);
  }

 private:
  __device__ static void columns(float (&x)[CPL], const float* at) {
    if constexpr (CPL == 2) {
      const float2 two = *reinterpret_cast<const float2*>(at);
      x[0] = two.x, x[1] = two.y;
    } else {
#pragma unroll
      for (int m = 0; m < CPL; ++m) x[m] = at[m];
    }
  }
};

// Where a lane finds its part of each token's record in a converted chunk, and leaves its partial sums.
template <class Form, class T, int KPT>
struct ColumnPlaces {
  const float* keys;   // the lane's key group in token 0's record
  const float* slice;  // its first column in token 0's record
  const float* gate;   // its first column of a per-value gate's slice there
  float* partials;     // its partial sum of token 0 and column 0 (of CPL); partial_index() from there
  int record;          // floats from one token's record to the next

  __device__ ColumnPlaces(const float* chunk, float* all_partials, const Geometry& g, const ColumnLane& lane)
      : keys(chunk + lane.key_group * ColumnRecord<Form, T>::group_floats(KPT)),
        slice(chunk + ColumnRecord<Form, T>::slice_offset(g, KPT) + lane.column),
        gate(chunk + ColumnRecord<Form, T>::gate_offset(g, KPT) + lane.column),
        partials(all_partials + lane.place),
        record(ColumnRecord<Form, T>::floats(g, KPT)) {}
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

// scan_chunk_tokens over a whole span of kTokens tokens (forwards, below 16 keys a lane): two tokens a trip
// with no branch between them, so ptxas can place one token's unpacking and output among the next one's
// dependent steps, which it does not do across scan_chunk_tokens' branches per token.
template <class Keys, int kTokens, class Load, class Step>
__device__ __forceinline__ void scan_whole_span(Load&& load, Step&& step) {
  static_assert(Keys::keys < 16 && kTokens % 2 == 0);
  Keys even, odd;
  load(even, 0);
#pragma unroll 1
  for (int i = 0; i < kTokens; i += 2) {
    load(odd, i + 1);
    step(even, i);
    load(even, min(i + 2, kTokens - 1));  // the last trip's: a token read again, never used
    step(odd, i + 1);
  }
}

// How far from its first partial sum (ColumnPlaces::partials) a lane leaves the one of token s and its column
// m (of CPL): per token and column the block's lanes' partials sit side by side, a column slot's KG of them
// neighbours (ColumnLane::place).
__device__ __forceinline__ int partial_index(int s, int m, const Geometry& g) {
  return (s * g.CPL + m) * (32 * g.W);
}

// The chunk's reductions over K: the warp sums the KG partials of each of its columns and tokens and hands
// (token, column within the block, sum) to `store`. kSumsAtOnce: the sums a lane makes before it stores any,
// their reads in flight together (one at a time, each sum waits on its reads before its adds); no reads past
// the chunk's last sum. Four paid in the plain bf16 forwards at 8 keys a lane (a lane's four sums of a
// 32-token chunk in one trip); at 4 keys a lane and in rwkv7's 16-key forwards they were slower
// (kernels/notes/fused_recurrent.md, versions 96 and 98).
template <int kSumsAtOnce = 1, class Store>
__device__ void finish_column_sums(const float* partials, int length, const Geometry& g, Store&& store) {
  __syncwarp();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int column_shift = __ffs(g.BV) - 1, lane_shift = __ffs(g.CPL) - 1;  // powers of two
  const int count = length * g.BV;
  if constexpr (kSumsAtOnce == 1) {  // (its own loop: the kernels that take it compile as before)
    for (int idx = lane; idx < count; idx += 32) {
      const int s = idx >> column_shift, in_warp = idx & (g.BV - 1);
      const int slot = in_warp >> lane_shift, m = in_warp & (g.CPL - 1);
      const float* first = partials + partial_index(s, m, g) + warp * 32 + slot * g.KG;
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
  } else {                                // the same sums in the same order, kSumsAtOnce of them a trip
    const auto first_of = [&](int idx) {  // where sum idx's KG partials start
      const int s = idx >> column_shift, in_warp = idx & (g.BV - 1);
      const int slot = in_warp >> lane_shift, m = in_warp & (g.CPL - 1);
      return partials + partial_index(s, m, g) + warp * 32 + slot * g.KG;
    };
    for (int base = lane; base < count; base += 32 * kSumsAtOnce) {
      const float* first[kSumsAtOnce];
      float sums[kSumsAtOnce];
      bool in[kSumsAtOnce];
#pragma unroll
      for (int u = 0; u < kSumsAtOnce; ++u) {
        in[u] = u == 0 || base + 32 * u < count;
        first[u] = first_of(in[u] ? base + 32 * u : base);
        sums[u] = 0;
      }
      if (g.KG % 4 == 0) {
        for (int kg = 0; kg < g.KG; kg += 4) {
          float4 four[kSumsAtOnce];
#pragma unroll
          for (int u = 0; u < kSumsAtOnce; ++u)
            four[u] = in[u] ? *reinterpret_cast<const float4*>(first[u] + kg) : make_float4(0, 0, 0, 0);
#pragma unroll
          for (int u = 0; u < kSumsAtOnce; ++u) sums[u] += (four[u].x + four[u].y) + (four[u].z + four[u].w);
        }
      } else {
        for (int kg = 0; kg < g.KG; ++kg) {
#pragma unroll
          for (int u = 0; u < kSumsAtOnce; ++u) sums[u] += in[u] ? first[u][kg] : 0.0f;
        }
      }
#pragma unroll
      for (int u = 0; u < kSumsAtOnce; ++u) {
        const int idx = base + 32 * u;
        if (in[u]) store(idx >> column_shift, warp * g.BV + (idx & (g.BV - 1)), sums[u]);
      }
    }
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
// Stores keys [Part, Part + 1) x KPT / Parts of the lane's columns into a [K, V] fp32 state (all of them by
// default). A lane's two columns (CPL = 2: v even, V even) are neighbours and leave as one 8-byte store, so
// a warp's store fills whole 32-byte sectors.
template <int Part = 0, int Parts = 1, int KPT, int CPL>
__device__ __forceinline__ void store_state_columns(float* state, const float (&S)[CPL][KPT], int V,
                                                    const ColumnLane& lane) {
  static_assert(KPT % Parts == 0 && (CPL == 1 || CPL == 2));
  if (!lane.active) return;
#pragma unroll
  for (int i = Part * KPT / Parts; i < (Part + 1) * KPT / Parts; ++i) {
    float* row = state + std::int64_t(lane.k0 + i) * V + lane.v;
    if constexpr (CPL == 2)
      *reinterpret_cast<float2*>(row) = make_float2(S[0][i], S[1][i]);
    else
      *row = S[0][i];
  }
}

// The same keys into the transpose, a [V, K] fp32 state: a column's keys are neighbours there and leave in
// 16-byte stores. gsa's pass 1 saves Hk^T so, the layout its backward on gla's kernels reads.
template <int Part = 0, int Parts = 1, int KPT, int CPL>
__device__ __forceinline__ void store_state_transposed(float* state, const float (&S)[CPL][KPT], int K,
                                                       const ColumnLane& lane) {
  constexpr int kKeys = KPT / Parts, kFirst = Part * kKeys;
  static_assert(KPT % Parts == 0 && kKeys % 4 == 0);
  if (!lane.active) return;
#pragma unroll
  for (int m = 0; m < CPL; ++m) {
    float* column = state + std::int64_t(lane.v + m) * K + lane.k0;
#pragma unroll
    for (int i = kFirst; i < kFirst + kKeys; i += 4)
      *reinterpret_cast<float4*>(column + i) = make_float4(S[m][i], S[m][i + 1], S[m][i + 2], S[m][i + 3]);
  }
}

}  // namespace flabench::fused
