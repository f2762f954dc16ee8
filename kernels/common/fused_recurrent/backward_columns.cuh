// fused_recurrent backward, column pass: the gradient of the state, dS_t = dL/dS_t, scanned backwards in time
// with the forward's layout (a kKeys x kColumns block per lane). It needs no forward state: every term of its
// recurrence is local to a column. It writes dv (a reduction over K) and, for the low-rank term,
// dsa_t = dS_t^T b_t, which the row pass needs.
#pragma once

#include "kernels/common/fused_recurrent/column_chunk.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::fused {

template <class Form, class T>
__global__ void __launch_bounds__(128)
    fused_recurrent_bwd_columns_kernel(Pointers<T> p, GradPointers<T> d, Geometry g, StagePlan plan,
                                       float* dsa_store) {
  using KV = KeyVectors<Form>;
  extern __shared__ __align__(16) char smem[];
  float* chunk = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());
  const int record = column_record_floats<Form>(g.K, g.block_columns());
  float* partials = chunk + kChunk * record;
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  const ColumnLane lane(g);
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V;

  float dS[kKeys][kColumns], u[kKeys];
  load_state_block(dS, d.d_ht + state_base, g.V, lane);
#pragma unroll
  for (int i = 0; i < kKeys; ++i) u[i] = Form::value.bonus ? to_float(p.u[h * g.K + lane.k0 + i]) : 0.0f;

  const ChunkRing ring{plan, smem, g.chunks, b, h, g.T, g.H, /*reverse=*/true};
  ring.prime();
  float gate_next = 0;
  if constexpr (!KV::per_key_gate) {
    const ChunkSpan last = chunk_span(0, g.chunks, g.T, true);
    gate_next = gate_of_lane(p.g, b, h, g.T, g.H, last.t0, last.length);
  }

  for (int index = 0; index < g.chunks; ++index) {
    ring.acquire(index);
    const ChunkSpan span = chunk_span(index, g.chunks, g.T, true);
    float gate_now = 0;
    if constexpr (!KV::per_key_gate) {
      gate_now = gate_next;
      if (index + 1 < g.chunks) {
        const ChunkSpan next = chunk_span(index + 1, g.chunks, g.T, true);
        gate_next = gate_of_lane(p.g, b, h, g.T, g.H, next.t0, next.length);
      }
    }
    convert_column_chunk<Form, T>(plan, ring.slot(index), span.length, g, chunk);

    // Token s's arithmetic (backwards in time); the caller has the previous token's loads in flight.
    auto step = [&](const ColumnKeys<Form>& x, int s) {
      float scaled_do[kColumns];  // the slice is do_t here
#pragma unroll
      for (int c = 0; c < kColumns; ++c) scaled_do[c] = g.scale * x.slice[c];
      if constexpr (!Form::value.output_before_update) {  // o_t = scale S_t^T q_t feeds dS_t
#pragma unroll
        for (int i = 0; i < kKeys; ++i)
#pragma unroll
          for (int c = 0; c < kColumns; ++c) dS[i][c] = fmaf(x.q[i], scaled_do[c], dS[i][c]);
      }
      float bonus = 0;  // (q . (u o k)): o_t's bonus term puts bonus * scale * do_t into dv_t
      if constexpr (Form::value.bonus) {
#pragma unroll
        for (int i = 0; i < kKeys; ++i) bonus = fmaf(x.q[i] * u[i], x.k[i], bonus);
      }
#pragma unroll
      for (int c = 0; c < kColumns; ++c)
        column_partial(partials, s, c, threadIdx.x) = fmaf(bonus, scaled_do[c], dot_keys(x.k, dS, c));
      float dsa[kColumns] = {};
      if constexpr (Form::value.low_rank) {
#pragma unroll
        for (int c = 0; c < kColumns; ++c) dsa[c] = dot_keys(x.b, dS, c);
#pragma unroll
        for (int c = 0; c < kColumns; ++c) dsa[c] = reduce_lanes(dsa[c], g.KG);
      }
#pragma unroll
      for (int i = 0; i < kKeys; ++i)
#pragma unroll
        for (int c = 0; c < kColumns; ++c) {  // dS <- dL/dS_{t-1}
          float prev = x.decay[i] * dS[i][c];
          if constexpr (Form::value.low_rank) prev = fmaf(x.a[i], dsa[c], prev);
          if constexpr (Form::value.output_before_update) prev = fmaf(x.q[i], scaled_do[c], prev);
          dS[i][c] = prev;
        }
      if (Form::value.low_rank) store_columns(dsa_store + token_row(b, span.t0 + s, h, g) * g.V, dsa, lane);
    };
    auto load = [&](ColumnKeys<Form>& x, int s) {
      x.load(chunk + s * record, g, lane, gate_decay<KV>(gate_now, s));
    };
    ColumnKeys<Form> even, odd;
    const int last = span.length - 1;
    load(even, last);
    for (int s = last; s >= 0; s -= 2) {
      if (s >= 1) load(odd, s - 1);
      step(even, s);
      if (s >= 1) {
        if (s >= 2) load(even, s - 2);
        step(odd, s - 1);
      }
    }
    finish_column_sums(partials, span.length, g, [&](int s, int column, float sum) {
      const int v = blockIdx.y * g.block_columns() + column;
      d.dv[token_row(b, span.t0 + s, h, g) * g.V + v] = from_float<T>(sum);
    });
  }
}

}  // namespace flabench::fused
