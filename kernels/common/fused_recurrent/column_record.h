// What a column pass keeps of each token in shared memory, once converted: the key vectors grouped by the
// lanes that read them, then the block's value-side slice. Host-safe (the host sizes shared memory from it,
// and tests/kernels/column_record_test.cpp checks its alignment and bank spread on the CPU).
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <type_traits>

#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/fused_recurrent/stage_plan.h"
#include "kernels/common/recurrence.h"

namespace flabench::fused {

// The key-side vectors a column pass stages, in order (the gate only when it is per key, a and b only for
// the low-rank term); the value-side slice follows them, and a per-value gate's slice after it.
template <class Form>
struct KeyVectors {
  static constexpr bool per_key_gate = Form::value.gate == GateKind::per_key;
  static constexpr bool per_head_gate = Form::value.gate == GateKind::per_head;
  static constexpr bool per_value_gate = Form::value.gate == GateKind::per_value;
  static constexpr bool low_rank = Form::value.low_rank;
  static constexpr int q = 0, k = 1, g = 2;
  static constexpr int a = per_key_gate ? 3 : 2, b = a + 1;
  static constexpr int count = 2 + (per_key_gate ? 1 : 0) + (low_rank ? 2 : 0);
};

// floats of one key group's part of a token record (the KPT keys of every key vector side by side: a lane
// reads all of its keys from one address) rounded up so that the group's size in 16-byte units is odd: then
// eight neighbouring groups (a warp's at 8 keys a lane and K = 64, or 16 and K = 128) start in distinct
// banks, and the few a quarter warp reads (ColumnLane) never share one.
__host__ __device__ constexpr int padded_key_group(int floats) {
  floats = (floats + 3) / 4 * 4;
  return floats / 4 % 2 == 1 ? floats : floats + 4;
}
// One token's record: the key groups (each KPT keys of every key vector), then the block's value-side slice,
// then (a per-value gate) the exp of its slice, then (for the bonus) the token's q . (u o k), which
// multiplies the slice in o_t and dv_t. With bf16 inputs
// and 8 or more keys per lane, the key vectors other than the decays stay bf16 in the record (packed): a
// lane's per-token shared-memory reads, the passes' busiest resource, shrink by a third (gla) and each key
// costs one integer op to unpack. The decays are always fp32 (exp of the log decay, made once per block).
template <class Form, class T>
struct ColumnRecord {
  using KV = KeyVectors<Form>;
  __host__ __device__ static constexpr bool packed(int KPT) {
    return std::is_same_v<T, __nv_bfloat16> && KPT >= 8;
  }
  __host__ __device__ static constexpr bool packed_vector(int vec, int KPT) {
    return packed(KPT) && !(KV::per_key_gate && vec == KV::g);
  }
  // floats a vector's KPT keys take in a key group, and where it starts there
  __host__ __device__ static constexpr int vector_floats(int vec, int KPT) {
    return packed_vector(vec, KPT) ? KPT / 2 : KPT;
  }
  __host__ __device__ static constexpr int vector_offset(int vec, int KPT) {  // the floats of those before it
    if (!packed(KPT)) return vec * KPT;
    return vec * KPT / 2 + (KV::per_key_gate && vec > KV::g ? KPT / 2 : 0);  // the decay's fp32 half
  }
  __host__ __device__ static constexpr int group_floats(int KPT) {
    return padded_key_group(vector_offset(KV::count, KPT));
  }
  // Offsets in a record at g's layout, KPT == g.KPT: kernels pass their compile-time KPT, so that the
  // record's size folds into constants rather than being worked out from g.KPT in several places.
  __host__ __device__ static constexpr int slice_offset(const Geometry& g, int KPT) {
    return g.K / KPT * group_floats(KPT);
  }
  __host__ __device__ static constexpr int gate_offset(const Geometry& g, int KPT) {
    return slice_offset(g, KPT) + (g.block_columns() + 3) / 4 * 4;
  }
  __host__ __device__ static constexpr int bonus_offset(const Geometry& g, int KPT) {
    return gate_offset(g, KPT) + (KV::per_value_gate ? (g.block_columns() + 3) / 4 * 4 : 0);
  }
  __host__ __device__ static constexpr int floats(const Geometry& g, int KPT) {
    return bonus_offset(g, KPT) + (Form::value.bonus ? 4 : 0);
  }
  __host__ __device__ static constexpr int slice_offset(const Geometry& g) { return slice_offset(g, g.KPT); }
  __host__ __device__ static constexpr int floats(const Geometry& g) { return floats(g, g.KPT); }
};

// One partial sum per scanning lane, column and token of a chunk: the reductions over K wait for the chunk's
// end, off the per-token critical path.
__host__ __device__ constexpr int column_partial_floats(const Geometry& g) {
  return g.column_tokens * 32 * g.W * g.CPL;
}

// The saving forward's checkpoint room (checkpoint_room.cuh), after the partial sums where launch_forward
// takes it. Row `row` of a buffer (a key's block_columns floats) starts at row * block_columns + this many
// floats: each key group's rows 4 * CPL floats after the last group's, so that a warp's lanes (key groups x
// column slots) writing one key each land on distinct banks (eight groups round the banks; no row overlaps
// the next group's).
__host__ __device__ constexpr int checkpoint_row_shift(int row, int KPT, int CPL) {
  return row / KPT * 4 * CPL;
}
// One buffer's floats, and the whole room's: two buffers and a^T S's tile (column_tokens x block_columns).
__host__ __device__ inline int checkpoint_buffer_floats(const Geometry& g) {
  return g.K * g.block_columns() + checkpoint_row_shift(g.K - 1, g.KPT, g.CPL);
}
__host__ __device__ inline int checkpoint_room_floats(const Geometry& g) {
  return 2 * checkpoint_buffer_floats(g) + g.column_tokens * g.block_columns();
}

// Whether the saving forward at g takes its checkpoints and a^T S_{t-1} through the room
// (kernels/notes/fused_recurrent.md, versions 83-84), given the pass's `shared` bytes and the device's
// `shared_limit` a block: rwkv7's at 16 keys a lane from 16-bit inputs (`input_bytes`) without converter
// warps (forward.cuh's kRoom instance), before the chunked backward (checkpoint_every > 1; the scans'
// backward, which fp32 takes, reads one every 16 tokens and was not measured with it), where every
// checkpoint falls at a chunk's start (the chunk's barrier orders the room's writes), the rows are whole
// 16-byte pieces (a power of two of them) and the room fits beside the pass (at K = 128 bf16's one column a
// lane, 2,16384,16,128's layout, and fp16's two; not bf16's two: tests/kernels/fused_records_test.cpp).
// launch_forward adds what it checks of the pointers (both bound, the checkpoints 16-byte aligned).
// The forward instances that have the room (forward.cuh's kRoom; launch_forward builds it where this holds),
// from the inputs' width, keys a lane and converter warps.
template <class Form>
__host__ __device__ constexpr bool checkpoint_room_instance(int input_bytes, int KPT, bool converters) {
  return input_bytes == 2 && KPT >= 16 && Form::value.low_rank && !converters;
}
template <class Form>
constexpr bool checkpoint_room_pays(const Geometry& g, int input_bytes, bool converters, std::size_t shared,
                                    std::size_t shared_limit) {
  const int columns = g.block_columns();
  return checkpoint_room_instance<Form>(input_bytes, g.KPT, converters) && g.checkpoint_every > 1 &&
         (kChunk * g.checkpoint_every) % g.column_tokens == 0 && columns % 4 == 0 &&
         (columns & (columns - 1)) == 0 && g.V % 4 == 0 && shared % 16 == 0 &&
         shared + sizeof(float) * checkpoint_room_floats(g) <= shared_limit;
}

// Shared memory of a column pass: the staging ring, the converted records (one buffer, or two with
// converter warps: column_feed.cuh), then the scanning lanes' partial sums.
template <class Form, class T>
inline std::size_t column_shared_bytes(const StagePlan& plan, const Geometry& g, bool converters) {
  const std::size_t buffers = converters ? 2 : 1;
  return kStages * std::size_t(plan.slot_bytes()) +
         sizeof(float) *
             (buffers * g.column_tokens * ColumnRecord<Form, T>::floats(g) + column_partial_floats(g));
}

}  // namespace flabench::fused
