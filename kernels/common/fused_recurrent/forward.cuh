// fused_recurrent forward: W warps per (batch, head, slice of BV * W value columns) scan time with their part
// of the fp32 state in registers (a kKeys x kColumns block per lane). Inputs arrive through the cp.async ring
// and are converted once per chunk; between chunks the block synchronises, within a chunk nothing does.
#pragma once

#include "kernels/common/fused_recurrent/column_chunk.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::fused {

template <class Form>
inline std::size_t column_shared_bytes(const StagePlan& plan, const Geometry& g) {
  return kStages * std::size_t(plan.slot_bytes()) +
         sizeof(float) * column_chunk_floats<Form>(g.K, g.block_columns(), 32 * g.W);
}

// `checkpoints` (save for backward): the state before every kChunk-th token, [B*H, chunks, K, V];
// `sa_store` (low rank, save for backward): a^T S_{t-1} per token, [B, T, H, V].
template <class Form, class T>
__global__ void __launch_bounds__(128) fused_recurrent_fwd_kernel(Pointers<T> p, Geometry g, StagePlan plan,
                                                                  float* checkpoints, float* sa_store) {
  using KV = KeyVectors<Form>;
  extern __shared__ __align__(16) char smem[];
  float* chunk = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());
  const int record = column_record_floats<Form>(g.K, g.block_columns());
  float* partials = chunk + kChunk * record;
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  const ColumnLane lane(g);
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V;

  float S[kKeys][kColumns], u[kKeys];
  load_state_block(S, p.h0 + state_base, g.V, lane);
#pragma unroll
  for (int i = 0; i < kKeys; ++i) u[i] = Form::value.bonus ? to_float(p.u[h * g.K + lane.k0 + i]) : 0.0f;

  const ChunkRing ring{plan, smem, g.chunks, b, h, g.T, g.H, /*reverse=*/false};
  ring.prime();
  float gate_next = 0;
  if constexpr (!KV::per_key_gate) gate_next = gate_of_lane(p.g, b, h, g.T, g.H, 0, min(kChunk, g.T));

  for (int index = 0; index < g.chunks; ++index) {
    ring.acquire(index);
    const ChunkSpan span = chunk_span(index, g.chunks, g.T, false);
    float gate_now = 0;
    if constexpr (!KV::per_key_gate) {
      gate_now = gate_next;
      if (index + 1 < g.chunks) {
        const ChunkSpan next = chunk_span(index + 1, g.chunks, g.T, false);
        gate_next = gate_of_lane(p.g, b, h, g.T, g.H, next.t0, next.length);
      }
    }
    if (checkpoints)
      store_state_block(checkpoints + (std::int64_t(bh) * g.chunks + index) * g.K * g.V, S, g.V, lane);
    convert_column_chunk<Form, T>(plan, ring.slot(index), span.length, g, chunk);

    // Token s's arithmetic; the caller has the next token's loads in flight meanwhile.
    auto step = [&](const ColumnKeys<Form>& x, int s) {
      float sa[kColumns] = {}, out[kColumns];
      if constexpr (Form::value.low_rank) {
#pragma unroll
        for (int c = 0; c < kColumns; ++c) sa[c] = dot_keys(x.a, S, c);
#pragma unroll
        for (int c = 0; c < kColumns; ++c) sa[c] = reduce_lanes(sa[c], g.KG);
      }
      if constexpr (Form::value.output_before_update) {  // o_t reads S_{t-1}, plus the bonus (u o k_t) v_t
        float uk[kKeys];
#pragma unroll
        for (int i = 0; i < kKeys; ++i) uk[i] = u[i] * x.k[i];
#pragma unroll
        for (int c = 0; c < kColumns; ++c) {
          float read[kKeys];
#pragma unroll
          for (int i = 0; i < kKeys; ++i) read[i] = fmaf(uk[i], x.slice[c], S[i][c]);
          out[c] = 0;
#pragma unroll
          for (int i = 0; i < kKeys; ++i) out[c] = fmaf(x.q[i], read[i], out[c]);
        }
      }
#pragma unroll
      for (int i = 0; i < kKeys; ++i)
#pragma unroll
        for (int c = 0; c < kColumns; ++c) {
          float updated = fmaf(x.decay[i], S[i][c], x.k[i] * x.slice[c]);
          if constexpr (Form::value.low_rank) updated = fmaf(x.b[i], sa[c], updated);
          S[i][c] = updated;
        }
      if constexpr (!Form::value.output_before_update) {
#pragma unroll
        for (int c = 0; c < kColumns; ++c) out[c] = dot_keys(x.q, S, c);
      }
#pragma unroll
      for (int c = 0; c < kColumns; ++c) column_partial(partials, s, c, threadIdx.x) = out[c];
      if (Form::value.low_rank && sa_store)
        store_columns(sa_store + token_row(b, span.t0 + s, h, g) * g.V, sa, lane);
    };
    auto load = [&](ColumnKeys<Form>& x, int s) {
      x.load(chunk + s * record, g, lane, gate_decay<KV>(gate_now, s));
    };
    ColumnKeys<Form> even, odd;
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
  store_state_block(p.ht + state_base, S, g.V, lane);
}

}  // namespace flabench::fused
