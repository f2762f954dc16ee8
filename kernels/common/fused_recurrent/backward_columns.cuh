// fused_recurrent backward, column pass: the gradient of the state, dS_t = dL/dS_t, scanned backwards in time
// with the forward's layout (KPT keys of CPL columns per lane). It needs no forward state: every term of its
// recurrence is local to a column. It writes dv (a reduction over K) and, for the low-rank term,
// dsa_t = dS_t^T b_t, which the row pass needs; where `handoff` is set, dS before the first token too (a
// segment's pass hands it to the segment before: variant.cuh).
#pragma once

#include "kernels/common/fused_recurrent/column_feed.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::fused {

// With converter warps the blocks have an SM each: the launch bound says so (forward.cuh).
template <class Form, class T, int KPT, int CPL, bool kConverter>
__global__ void __launch_bounds__(32 * (kMaxColumnWarps + (kConverter ? kConverterWarps : 0)),
                                  kConverter ? 1 : 0)
    fused_recurrent_bwd_columns_kernel(Pointers<T> p, GradPointers<T> d, Geometry g, StagePlan plan,
                                       float* dsa_store, float* handoff) {
  using KV = KeyVectors<Form>;
  using Feed = ColumnFeed<Form, T, KPT, kConverter>;
  extern __shared__ __align__(16) char smem[];
  float* chunk = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());  // the first record buffer
  const int record = ColumnRecord<Form, T>::floats(g, KPT);
  float* partials = chunk + Feed::kBuffers * Feed::buffer_floats(g);
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  if (Feed::is_converter(g)) {  // it stages and converts every chunk, then leaves
    Feed(plan, smem, g, b, h, /*reverse=*/true).run_converter(g, BonusKeys<Form>(p.u, h, g), chunk);
    return;
  }
  const ColumnLane lane(g);
  const ColumnPlaces<Form, T, KPT> at(chunk, partials, g, lane);
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V;

  float dS[CPL][KPT];  // dS[m]: the lane's keys of column lane.v + m
  load_state_columns(dS, d.d_ht + state_base, g.V, lane);
  const BonusKeys<Form> bonus(p.u, h, g);

  const Feed feed(plan, smem, g, b, h, /*reverse=*/true);
  feed.prime();
  HeadGates<KV, T> gates(p.g, g, b, h, g.column_chunks, g.column_tokens, /*reverse=*/true);

  // The scan, for a low-rank update with the count of a column's key groups known when compiling
  // (key_groups: KG; 0 elsewhere), as the forward's (kernels/notes/fused_recurrent.md, version 66).
  const auto scan = [&](auto key_groups) {
    for (int index = 0; index < g.column_chunks; ++index) {
      const ScanChunk c = feed.begin_chunk(index, g, bonus, chunk, [&] { gates.advance(index); });

      // Token s's arithmetic (backwards in time).
      auto step = [&](const ColumnKeys<Form, T, KPT, CPL>& x, int s) {
#pragma unroll
        for (int m = 0; m < CPL; ++m) {
          const float scaled_do = g.scale * x.slice[m];       // the slice is do_t here
          if constexpr (!Form::value.output_before_update) {  // o_t = scale S_t^T q_t feeds dS_t
#pragma unroll
            for (int i = 0; i < KPT; ++i) dS[m][i] = fmaf(x.q[i], scaled_do, dS[m][i]);
          }
          at.partials[partial_index(s, m, g)] = dot(dS[m], x.k);  // o_t's bonus joins at the chunk's end
          [[maybe_unused]] float dsa = 0;                         // (a low-rank update's)
          if constexpr (Form::value.low_rank)
            dsa = lane.template sum_over_key_groups<decltype(key_groups)::value>(dot(x.b, dS[m]));
#pragma unroll
          for (int i = 0; i < KPT; ++i) {  // dS <- dL/dS_{t-1}
            float prev = x.decay[i] * dS[m][i];
            if constexpr (Form::value.low_rank) prev = fmaf(x.a[i], dsa, prev);
            if constexpr (Form::value.output_before_update) prev = fmaf(x.q[i], scaled_do, prev);
            dS[m][i] = prev;
          }
          if constexpr (Form::value.low_rank)
            if (lane.active && lane.key_group == 0)
              dsa_store[c.first_row * g.V + s * c.token_stride + lane.v + m] = dsa;
        }
      };
      auto load = [&](ColumnKeys<Form, T, KPT, CPL>& x, int s) {
        x.load(at.keys + c.shift + s * at.record, at.slice + c.shift + s * at.record, gates.decay(s));
      };
      scan_chunk_tokens<ColumnKeys<Form, T, KPT, CPL>>(c.span.length, /*reverse=*/true, load, step);
      T* dv = d.dv + c.first_row * g.V + blockIdx.y * g.block_columns();
      finish_column_sums(partials, c.span.length, g, [&](int s, int column, float sum) {
        if constexpr (Form::value.bonus) {  // o_t's bonus (q_t . (u o k_t)) v_t
          const float* row = c.records + s * record;
          sum = fmaf(row[ColumnRecord<Form, T>::bonus_offset(g, KPT)],
                     g.scale * row[ColumnRecord<Form, T>::slice_offset(g, KPT) + column], sum);
        }
        dv[s * c.token_stride + column] = from_float<T>(sum);
      });
      feed.release(index, g);
    }
  };
  with_key_groups<Form, KPT>(g, scan);
  if (handoff) store_state_columns(handoff + state_base, dS, g.V, lane);
}

}  // namespace flabench::fused
