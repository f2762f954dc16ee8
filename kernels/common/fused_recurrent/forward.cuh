// fused_recurrent forward: W warps per (batch, head, slice of BV * W value columns) scan time with their part
// of the fp32 state in registers (KPT keys of CPL columns per lane). Inputs arrive through the cp.async ring
// and are converted once per chunk, by the block or by converter warps beside the scanning ones
// (column_feed.cuh); within a chunk no barrier holds the scan.
#pragma once

#include <type_traits>

#include "kernels/common/constant_dispatch.h"
#include "kernels/common/fused_recurrent/checkpoint_room.cuh"
#include "kernels/common/fused_recurrent/column_feed.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::fused {

// What the forward writes: the inputs' type, or fp32 for a per-value gate (gsa's logits, whose softmax
// follows: Pointers::o then holds fp32 memory).
template <class Form, class T>
using ForwardOutput = std::conditional_t<KeyVectors<Form>::per_value_gate, float, T>;

// Chunks of g.column_tokens tokens (16 or 32) are staged and converted at a time, and scanned kChunk tokens
// at a time. kSaves (save for backward): `checkpoints` receives the state before every kChunk-th token (but
// where g.checkpoint_every says a backward reads fewer, packed where g.checkpoint_shift says), [B*H, chunks,
// K, V] (a per-value gate's transposed, [B*H, chunks, V, K], and so where g.checkpoints_transposed), and
// `sa_store` (low rank) a^T S_{t-1} per token, [B, T, H, V]; both through shared memory in the room's own
// instance, kRoom (checkpoint_room.cuh; launch_forward's choice). At 8 and 4 keys a lane, and with converter
// warps, the launch bound asks for one block an SM: those scans are latency-bound, or have an SM each, and
// left to itself ptxas traded their registers for occupancy they cannot use (rwkv7 at 4 keys 73 -> 64
// registers, gla fp32 63 -> 48: 1.04-1.12x slower; rwkv6's converter forward 80 registers and 48 bytes of
// spills; kernels/notes/fused_recurrent.md, version 50). So does the saving forward at 16 keys: with version
// 63's second scan loop ptxas cut it to 128 registers and 32-60 bytes of spills at two columns a lane
// (159-167 registers before; 140-142 with the bound, no spills). 0 elsewhere: no bound, ptxas's choice as
// before.
// The room has an instance of its own (version 84): with the checkpoints' bursts and a^T S's global stores
// compiled into the same kernel, the room's saving forward ran 1.025x slower in rwkv7's fwd+bwd at
// 2,16384,16,128 (kernels/notes/fused_recurrent.md).
template <class Form, class T, int KPT, int CPL, bool kSaves, bool kConverter, bool kRoom = false>
__global__ void __launch_bounds__(32 * (kMaxColumnWarps + (kConverter ? kConverterWarps : 0)),
                                  KPT < 16 || kConverter || kSaves ? 1 : 0)
    fused_recurrent_fwd_kernel(Pointers<T> p, Geometry g, StagePlan plan, float* checkpoints,
                               float* sa_store) {
  using KV = KeyVectors<Form>;
  using Feed = ColumnFeed<Form, T, KPT, kConverter>;
  using Out = ForwardOutput<Form, T>;
  extern __shared__ __align__(16) char smem[];
  float* chunk = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());  // the first record buffer
  const int record = ColumnRecord<Form, T>::floats(g, KPT);
  float* partials = chunk + Feed::kBuffers * Feed::buffer_floats(g);
  // checkpoint_room.cuh: rwkv7's saving forward only (the room was timed for it alone), without converter
  // warps, whose block's barrier at each chunk's start orders the room's writes
  static_assert(!kRoom || (kSaves && checkpoint_room_instance<Form>(sizeof(T), KPT, kConverter)));
  const CheckpointRoom room(partials + column_partial_floats(g), g);
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  if (Feed::is_converter(g)) {  // it stages and converts every chunk, then leaves
    Feed(plan, smem, g, b, h, /*reverse=*/false).run_converter(g, BonusKeys<Form>(p.u, h, g), chunk);
    return;
  }
  const ColumnLane lane(g);
  const ColumnPlaces<Form, T, KPT> at(chunk, partials, g, lane);
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V;

  float S[CPL][KPT];  // S[m]: the lane's keys of column lane.v + m
  load_state_columns(S, p.h0 + state_base, g.V, lane);
  const BonusKeys<Form> bonus(p.u, h, g);

  const Feed feed(plan, smem, g, b, h, /*reverse=*/false);
  feed.prime();
  HeadGates<KV, T> gates(p.g, g, b, h, g.column_chunks, g.column_tokens, /*reverse=*/false);

  // The scan, for a low-rank update with the count of a column's key groups (lanes) known when compiling
  // (key_groups: KG; 0 elsewhere, where nothing sums over them per token).
  const auto scan = [&](auto key_groups) {
    for (int index = 0; index < g.column_chunks; ++index) {
      // the room's checkpoint before this chunk (one at its start or none: launch_forward's rule), written
      // before the chunk's barrier and sent out by the block after it (the buffer the checkpoint before used
      // was read before this barrier)
      [[maybe_unused]] const int room_index = index * g.column_tokens / kChunk;
      [[maybe_unused]] const bool room_saves = kRoom && (room_index & (g.checkpoint_every - 1)) == 0;
      [[maybe_unused]] const int room_buffer = (room_index / g.checkpoint_every) & 1;
      if constexpr (kRoom) {
        if (room_saves && lane.active) room.write(room_buffer, S, lane.k0, lane.column, g.block_columns());
      }
      const ScanChunk c = feed.begin_chunk(index, g, bonus, chunk, [&] { gates.advance(index); });
      if constexpr (kRoom) {
        if (room_saves)
          room.send<KPT, CPL>(
              room_buffer, checkpoints + g.checkpoint_offset(bh, room_index) + blockIdx.y * g.block_columns(),
              g.K, g.V, g.block_columns());
      }

      // Token s's arithmetic.
      auto step = [&](const ColumnKeys<Form, T, KPT, CPL>& x, int s) {
#pragma unroll
        for (int m = 0; m < CPL; ++m) {
          [[maybe_unused]] float sa = 0;  // (a low-rank update's)
          float out;
          if constexpr (Form::value.low_rank)
            sa = lane.template sum_over_key_groups<decltype(key_groups)::value>(dot(x.a, S[m]));
          if constexpr (Form::value.output_before_update)
            out = dot(x.q, S[m]);  // o_t reads S_{t-1}, + the bonus
#pragma unroll
          for (int i = 0; i < KPT; ++i) {
            float updated = fmaf(x.decay_of(i, m), S[m][i], x.k[i] * x.slice[m]);
            if constexpr (Form::value.low_rank) updated = fmaf(x.b[i], sa, updated);
            S[m][i] = updated;
          }
          if constexpr (!Form::value.output_before_update) out = dot(x.q, S[m]);
          at.partials[partial_index(s, m, g)] = out;
          if constexpr (Form::value.low_rank && kSaves) {  // (sa_store is set only where checkpoints are)
            if constexpr (kRoom) {  // the room's tile, sent with the outputs (every lane of the column)
              if (lane.active) room.sa[s * g.block_columns() + lane.column + m] = sa;
            } else if (sa_store && lane.active && lane.key_group == 0) {
              sa_store[c.first_row * g.V + s * c.token_stride + lane.v + m] = sa;
            }
          }
        }
      };
      auto load = [&](ColumnKeys<Form, T, KPT, CPL>& x, int s) {
        x.load(at.keys + c.shift + s * at.record, at.slice + c.shift + s * at.record, gates.decay(s),
               at.gate + c.shift + s * at.record);
      };
      for (int part = 0; part < c.span.length; part += kChunk) {  // a checkpoint before every kChunk tokens
        const int checkpoint_index = (c.span.t0 + part) / kChunk;
        float* checkpoint = kSaves && !kRoom && (checkpoint_index & (g.checkpoint_every - 1)) == 0
                                ? checkpoints + g.checkpoint_offset(bh, checkpoint_index)
                                : nullptr;
        // (Where the room takes them, none here.) At 16 keys a lane the checkpoint leaves two keys' stores at
        // a time, before every other token of the part, from a copy of the state: a lane's 16 or 32 stores at
        // once (1 or 2 columns) filled the memory instruction queue (ncu: stall_lg) and held the scan
        // (kernels/notes/fused_recurrent.md, version 27). At 8 keys or 4 (as many stores) they stay at the
        // part's start, and one scan loop keeps the next token's loads in flight across it. (A per-value
        // gate's transposed store takes four keys at a time: one 16-byte store a column.)
        constexpr int kBursts = kSaves && KPT >= 16 ? KPT / (KV::per_value_gate ? 4 : 2) : 1,
                      kBurstTokens = kChunk / kBursts;
        static_assert(kChunk % kBursts == 0);
        // A part with nothing to store (checkpoint_every > 1: a backward in chunk form follows) runs one loop
        // without the state's copy (version 62; for the recurrences' forms since version 63, when gla,
        // simple_gla and rwkv6 took that backward: before, never taken there, it made gla's
        // fwd+bwd at D = 128 0.7-0.9% slower). Not for gsa's passes (a per-value gate), which never take it.
        if constexpr (kBursts > 1 && !KV::per_value_gate) {
          if (!checkpoint) {
            scan_chunk_tokens<ColumnKeys<Form, T, KPT, CPL>>(
                max(0, min(kChunk, c.span.length - part)), /*reverse=*/false,
                [&](auto& x, int s) { load(x, part + s); }, [&](const auto& x, int s) { step(x, part + s); });
            continue;
          }
        }
        [[maybe_unused]] float saved[CPL][KPT];  // (a saving forward's)
        if constexpr (kSaves) {
#pragma unroll
          for (int m = 0; m < CPL; ++m)
#pragma unroll
            for (int i = 0; i < KPT; ++i) saved[m][i] = S[m][i];
        }
        for_each_constant<kBursts>([&](auto burst) {
          if (checkpoint) {  // gsa's pass 1 saves Hk^T, for its backward on gla's kernels
            if constexpr (kSaves && KV::per_value_gate) {
              store_state_transposed<burst.value, kBursts>(checkpoint, saved, g.K, lane);
            } else if constexpr (kSaves && kBursts == 1) {
              if (g.checkpoints_transposed)
                store_state_transposed(checkpoint, saved, g.K, lane);
              else
                store_state_columns(checkpoint, saved, g.V, lane);
            } else if constexpr (kSaves) {
              store_state_columns<burst.value, kBursts>(checkpoint, saved, g.V, lane);
            }
          }
          using Keys = ColumnKeys<Form, T, KPT, CPL>;
          const int first = part + burst.value * kBurstTokens, left = c.span.length - first;
          const auto load_at = [&](Keys& x, int s) { load(x, first + s); };
          const auto step_at = [&](const Keys& x, int s) { step(x, first + s); };
          // A whole span (below 16 keys a lane) without branches between its tokens. The test reads the
          // unclamped count: compiled from the clamped length (`length == kBurstTokens` on the value passed
          // below), ptxas (CUDA 13.0, sm_90) tested a predicate of the clamp's VIMNMX that sent shorter spans
          // down the whole-span loop too (kernels/notes/fused_recurrent.md, version 73).
          if constexpr (KPT < 16) {
            if (left >= kBurstTokens) return scan_whole_span<Keys, kBurstTokens>(load_at, step_at);
          }
          scan_chunk_tokens<Keys>(max(0, min(kBurstTokens, left)), /*reverse=*/false, load_at, step_at);
        });
      }
      Out* o = reinterpret_cast<Out*>(p.o) + c.first_row * g.V + blockIdx.y * g.block_columns();
      // Four sums a lane at once in the plain bf16 forward at 8 keys a lane (one trip a 32-token chunk):
      // 0.95-0.98x at 8,1024,8,64 and 4,4096,16,64 (kernels/notes/fused_recurrent.md, version 98); one at a
      // time elsewhere (four were slower at 4 keys a lane and in rwkv7's 16-key forwards, version 96).
      constexpr int kSumsAtOnce = !kSaves && KPT == 8 && std::is_same_v<T, __nv_bfloat16> ? 4 : 1;
      finish_column_sums<kSumsAtOnce>(partials, c.span.length, g, [&](int s, int column, float sum) {
        if constexpr (Form::value.bonus) {  // (q_t . (u o k_t)) v_t
          const float* row = c.records + s * record;
          sum = fmaf(row[ColumnRecord<Form, T>::bonus_offset(g, KPT)],
                     row[ColumnRecord<Form, T>::slice_offset(g, KPT) + column], sum);
        }
        o[s * c.token_stride + column] = from_float<Out>(g.scale * sum);
        if constexpr (kRoom) {  // (the warp's own lanes wrote its columns' a^T S)
          if (sa_store)
            sa_store[c.first_row * g.V + s * c.token_stride + blockIdx.y * g.block_columns() + column] =
                room.sa[s * g.block_columns() + column];
        }
      });
      feed.release(index, g);
    }
  };
  with_key_groups<Form, KPT>(g, scan);
  store_state_columns(p.ht + state_base, S, g.V, lane);
}

}  // namespace flabench::fused
