// fused_recurrent forward: W warps per (batch, head, slice of BV * W value columns) scan time with their part
// of the fp32 state in registers (KPT keys of one column per lane). Inputs arrive through the cp.async ring
// and are converted once per chunk; between chunks the block synchronises, within a chunk nothing does.
#pragma once

#include "kernels/common/fused_recurrent/column_chunk.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::fused {

template <class Form>
inline std::size_t column_shared_bytes(const StagePlan& plan, const Geometry& g) {
  return kStages * std::size_t(plan.slot_bytes()) + sizeof(float) * column_chunk_floats<Form>(g);
}

// `checkpoints` (save for backward): the state before every kChunk-th token, [B*H, chunks, K, V];
// `sa_store` (low rank, save for backward): a^T S_{t-1} per token, [B, T, H, V].
template <class Form, class T, int KPT>
__global__ void __launch_bounds__(128) fused_recurrent_fwd_kernel(Pointers<T> p, Geometry g, StagePlan plan,
                                                                  float* checkpoints, float* sa_store) {
  using KV = KeyVectors<Form>;
  extern __shared__ __align__(16) char smem[];
  float* chunk = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());
  const int record = column_record_floats<Form>(g);
  float* partials = chunk + kChunk * record;
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  const ColumnLane lane(g);
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V;

  float S[KPT], u[KPT];
  load_state_column(S, p.h0 + state_base, g.V, lane);
#pragma unroll
  for (int i = 0; i < KPT; ++i) u[i] = Form::value.bonus ? to_float(p.u[h * g.K + lane.k0 + i]) : 0.0f;

  const ChunkRing ring{plan, smem, g.chunks, b, h, g.T, g.H, /*reverse=*/false};
  ring.prime();
  HeadGates<KV, T> gates(p.g, g, b, h, /*reverse=*/false);

  for (int index = 0; index < g.chunks; ++index) {
    ring.acquire(index);
    const ChunkSpan span = chunk_span(index, g.chunks, g.T, false);
    gates.advance(index);
    if (checkpoints)
      store_state_column(checkpoints + (std::int64_t(bh) * g.chunks + index) * g.K * g.V, S, g.V, lane);
    convert_column_chunk<Form, T, KPT>(plan, ring.slot(index), span.length, g, chunk);

    // Token s's arithmetic; the caller has the next token's loads in flight meanwhile.
    auto step = [&](const ColumnKeys<Form, KPT>& x, int s) {
      float sa = 0, out;
      if constexpr (Form::value.low_rank) sa = sum_over_lanes(dot(x.a, S), g.KG);
      if constexpr (Form::value.output_before_update) {  // o_t reads S_{t-1}, plus the bonus (u o k_t) v_t
        float read[KPT];
#pragma unroll
        for (int i = 0; i < KPT; ++i) read[i] = fmaf(u[i] * x.k[i], x.slice, S[i]);
        out = dot(x.q, read);
      }
#pragma unroll
      for (int i = 0; i < KPT; ++i) {
        float updated = fmaf(x.decay[i], S[i], x.k[i] * x.slice);
        if constexpr (Form::value.low_rank) updated = fmaf(x.b[i], sa, updated);
        S[i] = updated;
      }
      if constexpr (!Form::value.output_before_update) out = dot(x.q, S);
      partials[s * blockDim.x + threadIdx.x] = out;
      if (Form::value.low_rank && sa_store && lane.active && lane.key_group == 0)
        sa_store[token_row(b, span.t0 + s, h, g) * g.V + lane.v] = sa;
    };
    auto load = [&](ColumnKeys<Form, KPT>& x, int s) { x.load(chunk + s * record, g, lane, gates.decay(s)); };
    ColumnKeys<Form, KPT> even, odd;
    load(even, 0);
    for (int s = 0; s < span.length; s += 2) {
      if (s + 1 < span.length) load(odd, s + 1);
      step(even, s);
      if (s + 1 < span.length) {
        if (s + 2 < span.length) load(even, s + 2);
        step(odd, s + 1);
      }
    }
    finish_column_sums(partials, span.length, g, [&](int s, int column, float sum) {
      const int v = blockIdx.y * g.block_columns() + column;
      p.o[token_row(b, span.t0 + s, h, g) * g.V + v] = from_float<T>(g.scale * sum);
    });
  }
  store_state_column(p.ht + state_base, S, g.V, lane);
}

}  // namespace flabench::fused
