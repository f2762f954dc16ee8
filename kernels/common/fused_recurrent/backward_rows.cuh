// fused_recurrent backward, row pass: the gradients that reduce over V (dq, dk, dg, da, db, du) need the
// forward state and its gradient side by side. A lane keeps SPAN (8 or 16) columns of one state row; a warp
// holds BK rows and a block W of them (sharing the staged value vectors), and the blocks of a head split K.
// Rows are independent given the per-token vectors a^T S_{t-1} (saved by the forward) and dS_t^T b_t (from
// the column pass). Backwards over chunks of kChunk tokens and, inside a chunk, over sub-chunks of kSub
// tokens: a sub-chunk's states are recomputed into registers from the chunk's checkpoint (or from the state
// halfway through the chunk, made once), then the row of dS_t is stepped back through them. The recomputation
// (32 state steps per 16 tokens instead of 16) buys freedom from shared memory for states, and with it the
// occupancy that hides the latency. Each token's gradients leave as per-lane partial sums in shared memory,
// reduced over V every one or two sub-chunks (Geometry::row_sum_tokens).
#pragma once

#include "kernels/common/fused_recurrent/geometry.cuh"
#include "kernels/common/fused_recurrent/staging.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::fused {

constexpr int kSub = 4;           // tokens whose states one lane holds in registers at a time
constexpr int kMid = kChunk / 2;  // a second starting point of the recomputation, inside the chunk
// Tokens whose partial sums one reduction over V finishes (Geometry::row_sum_tokens): one sub-chunk, or two
// where their room costs no resident block, so that at VG = 8 (BK = 4 rows a warp) all 32 lanes have a
// (token, row) to finish and the reduction's fixed costs come half as often.
constexpr int kWideSums = 2 * kSub;
static_assert(kChunk % kWideSums == 0, "a reduction never spans two chunks");

// Per token: the key vectors' entries for the block's rows, then v, do (and a^T S, dS^T b) over all V.
template <class Form>
struct RowRecord {
  static constexpr int value_vectors = Form::value.low_rank ? 4 : 2;
  static constexpr int v = 0, d_o = 1, sa = 2, dsa = 3;
  __host__ __device__ static constexpr int keys_floats(int rows) {
    return (KeyVectors<Form>::count * rows + 3) / 4 * 4;
  }
  __host__ __device__ static constexpr int floats(int rows, int V, int SPAN) {
    return keys_floats(rows) + value_vectors * padded_values(V, SPAN);
  }
};

// Per-lane partial sums of a token, reduced over V at the sub-chunk's end: dq, dk, dg, (db, da), (v . do).
template <class Form>
struct RowSums {
  static constexpr int dq = 0, dk = 1, dg = 2, db = 3, da = Form::value.low_rank ? 4 : 3;
  static constexpr int v_dot_do = da + (Form::value.low_rank ? 1 : 0);
  static constexpr int count = v_dot_do + (Form::value.bonus ? 1 : 0);
  // floats of one token's sums: count x 32 lanes, + 4 so that the 16-byte reads of neighbouring tokens' sums
  // (a quarter warp finishes rows of two tokens) start in different banks
  static constexpr int token_floats = count * 32 + 4;
};

// The ring, the converted chunk and each warp's partial sums of `sum_tokens` tokens.
template <class Form>
inline std::size_t rows_shared_bytes(const StagePlan& plan, const Geometry& g, int sum_tokens) {
  return kStages * std::size_t(plan.slot_bytes()) +
         sizeof(float) * (kChunk * RowRecord<Form>::floats(g.block_rows(), g.V, g.SPAN) +
                          g.W_rows * sum_tokens * RowSums<Form>::token_floats);
}

template <class Form, class T, int SPAN>
__device__ void convert_row_chunk(const StagePlan& plan, const char* slot, int length, const Geometry& g,
                                  float* records) {
  using KV = KeyVectors<Form>;
  using R = RowRecord<Form>;
  const int rows = g.block_rows(), record = R::floats(rows, g.V, SPAN);
  const int key_shift = log2_of(rows), key_mask = rows - 1;
#pragma unroll
  for (int vec = 0; vec < KV::count; ++vec) {
    for (int idx = threadIdx.x; idx < (length << key_shift); idx += blockDim.x) {
      const int s = idx >> key_shift, i = idx & key_mask;
      float x = to_float(staged<T>(plan, slot, s, vec)[i]);
      if (KV::per_key_gate && vec == KV::g) x = exp_flushed(x);
      records[s * record + vec * rows + i] = x;
    }
  }
  const int group_shift = log2_of(g.V / 8), group_mask = g.V / 8 - 1;
#pragma unroll
  for (int which = 0; which < R::value_vectors; ++which) {
    for (int idx = threadIdx.x; idx < (length << group_shift); idx += blockDim.x) {
      const int s = idx >> group_shift, group = idx & group_mask;
      float x[8];
      if (which < 2)
        load8(staged<T>(plan, slot, s, KV::count + which) + group * 8, x);
      else
        load8(staged<float>(plan, slot, s, KV::count + which) + group * 8, x);
      const int first = group * 8;  // eight values: half a lane's (SPAN 16) or a lane's (8)
      store8(records + s * record + R::keys_floats(rows) + which * padded_values(g.V, SPAN) +
                 first / SPAN * (SPAN + 4) + first % SPAN,
             x);
    }
  }
  __syncthreads();
}

// One row's scalars and one lane's 16 values of each value vector, at one token.
template <class Form, int SPAN>
struct RowToken {
  float q, k, decay, a, b;
  float v[SPAN], d_o[SPAN], sa[SPAN], dsa[SPAN];

  // `gradients`: also do and dS^T b, which only the backward step reads.
  __device__ void load(const float* record, const Geometry& g, int row, int value_group, float head_decay,
                       bool gradients) {
    using KV = KeyVectors<Form>;
    using R = RowRecord<Form>;
    const int rows = g.block_rows();
    q = record[KV::q * rows + row];
    k = record[KV::k * rows + row];
    decay = KV::per_key_gate ? record[KV::g * rows + row] : head_decay;
    a = KV::low_rank ? record[KV::a * rows + row] : 0.0f;
    b = KV::low_rank ? record[KV::b * rows + row] : 0.0f;
    const int stride = padded_values(g.V, SPAN);
    const float* values = record + R::keys_floats(rows) + value_group * (SPAN + 4);
    load_floats(v, values + R::v * stride);
    if constexpr (Form::value.low_rank) load_floats(sa, values + R::sa * stride);
    if (gradients) {
      load_floats(d_o, values + R::d_o * stride);
      if constexpr (Form::value.low_rank) load_floats(dsa, values + R::dsa * stride);
    }
  }
  // S_t (into `to`) from S_{t-1} (`from`; the same array for in place)
  __device__ void step(const float (&from)[SPAN], float (&to)[SPAN]) const {
#pragma unroll
    for (int j = 0; j < SPAN; ++j) {
      float next = fmaf(decay, from[j], k * v[j]);
      if constexpr (Form::value.low_rank) next = fmaf(b, sa[j], next);
      to[j] = next;
    }
  }
  __device__ void step(float (&S)[SPAN]) const {
    step(S, S);
  }
};

// A row's totals at one token: each of the N quantities' partial sums (32 apart) over the row's VG lanes.
// kVG: VG as a compile-time constant (4 and 8, where every layout an H100 picks for the peer shapes puts
// it: the loads unrolled, no loop), or 0 for the geometry's.
template <int kVG, int N>
__device__ __forceinline__ void row_totals(const float* partial, int VG, float (&total)[N]) {
  const int lanes = kVG > 0 ? kVG : VG;
#pragma unroll
  for (int q = 0; q < N; ++q) {
    total[q] = 0;
    if (lanes % 4 == 0) {  // a row's partials are 16-byte aligned then
#pragma unroll
      for (int vg = 0; vg < lanes; vg += 4) {
        const float4 four = *reinterpret_cast<const float4*>(partial + q * 32 + vg);
        total[q] += (four.x + four.y) + (four.z + four.w);
      }
    } else {
      for (int vg = 0; vg < lanes; ++vg) total[q] += partial[q * 32 + vg];
    }
  }
}

template <class Form, class T, int SPAN>
__global__ void __launch_bounds__(128)
    fused_recurrent_bwd_rows_kernel(Pointers<T> p, GradPointers<T> d, Geometry g, StagePlan plan,
                                    const float* checkpoints, float* dg_rows, float* du_partial) {
  using KV = KeyVectors<Form>;
  using R = RowRecord<Form>;
  using Q = RowSums<Form>;
  extern __shared__ __align__(16) char smem[];
  float* records = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());
  const int record_floats = R::floats(g.block_rows(), g.V, SPAN);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int sum_mask = g.row_sum_tokens - 1;
  float* sums = records + kChunk * record_floats +
                warp * g.row_sum_tokens * Q::token_floats;  // [row_sum_tokens][Q::count][32 lanes]
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  const int row_in_warp = lane / g.VG, value_group = lane % g.VG;
  const bool active = row_in_warp < g.BK;
  const int row = warp * g.BK + (active ? row_in_warp : 0);  // within the block
  const int k = blockIdx.y * g.block_rows() + row;
  const int v0 = value_group * SPAN;
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V + std::int64_t(k) * g.V + v0;
  // The reductions give lane l row l % BK of its warp, for tokens l / BK, l / BK + 32 / BK, ... (BK a power
  // of two: shifts and masks, no divisions); that row's bonus is the one it needs there.
  const int bk_shift = __ffs(g.BK) - 1, my_row_in_warp = lane & (g.BK - 1);
  const int my_row = warp * g.BK + my_row_in_warp;
  const float u_mine =
      Form::value.bonus ? to_float(p.u[h * g.K + blockIdx.y * g.block_rows() + my_row]) : 0.0f;

  float dS[SPAN];
  load_floats(dS, d.d_ht + state_base);
  float du = 0;

  const ChunkRing ring{plan, smem, g.chunks, b, h, g.T, g.H, /*reverse=*/true, g.sequence_stride};
  ring.prime();
  HeadGates<KV, T> gates(p.g, g, b, h, g.chunks, kChunk, /*reverse=*/true);

  for (int index = 0; index < g.chunks; ++index) {
    const int chunk = g.chunks - 1 - index;
    float S0[SPAN];  // the state before the chunk's first token
    load_floats(S0, checkpoints + (std::int64_t(bh) * g.checkpoint_stride + chunk) * g.K * g.V +
                        std::int64_t(k) * g.V + v0);
    ring.acquire(index);
    const ChunkSpan span = chunk_span(index, g.chunks, g.T, true);
    // where this lane's row of the chunk's first token goes in [B, T, H, K]; later tokens are H * K on
    const std::int64_t first_at = token_row(b, span.t0, h, g) * g.K + blockIdx.y * g.block_rows() + my_row;
    gates.advance(index);
    convert_row_chunk<Form, T, SPAN>(plan, ring.slot(index), span.length, g, records);
    auto token = [&](int s, bool gradients) {
      RowToken<Form, SPAN> x;
      x.load(records + s * record_floats, g, row, value_group, gates.decay(s), gradients);
      return x;
    };

    // The state before token kMid: the sub-chunks from there on recompute from it rather than from S0.
    float S_mid[SPAN];
#pragma unroll
    for (int j = 0; j < SPAN; ++j) S_mid[j] = S0[j];
    for (int s = 0; s < (span.length > kMid ? kMid : 0); ++s) token(s, false).step(S_mid);

    for (int first = (span.length - 1) / kSub * kSub; first >= 0; first -= kSub) {
      const bool late = first >= kMid;
      // states[i]: the state before token first + i; each made from the one before in place of a copy
      float states[kSub + 1][SPAN];
#pragma unroll
      for (int j = 0; j < SPAN; ++j) states[0][j] = late ? S_mid[j] : S0[j];
      for (int s = late ? kMid : 0; s < first; ++s) token(s, false).step(states[0]);
#pragma unroll
      for (int i = 0; i < kSub; ++i)  // the last token's step only where the output reads S_t
        if (first + i < span.length && (i + 1 < kSub || !Form::value.output_before_update))
          token(first + i, false).step(states[i], states[i + 1]);
#pragma unroll
      for (int i = kSub - 1; i >= 0; --i) {
        const int s = first + i;
        if (s >= span.length) continue;
        const RowToken<Form, SPAN> x = token(s, true);
        // the state the output read: S_{t-1}, or S_t
        const float(&S_read)[SPAN] = states[Form::value.output_before_update ? i : i + 1];
        if constexpr (!Form::value.output_before_update) {
#pragma unroll
          for (int j = 0; j < SPAN; ++j) dS[j] = fmaf(g.scale * x.q, x.d_o[j], dS[j]);
        }
        float* out = sums + (s & sum_mask) * Q::token_floats + lane;
        out[Q::dq * 32] = dot(S_read, x.d_o);
        out[Q::dk * 32] = dot(dS, x.v);
        out[Q::dg * 32] = dot(dS, states[i]);
        if constexpr (Form::value.low_rank) {
          out[Q::db * 32] = dot(dS, x.sa);
          out[Q::da * 32] = dot(states[i], x.dsa);
        }
        if constexpr (Form::value.bonus) out[Q::v_dot_do * 32] = dot(x.v, x.d_o);
#pragma unroll
        for (int j = 0; j < SPAN; ++j) {  // dS <- dL/dS_{t-1}
          float prev = x.decay * dS[j];
          if constexpr (Form::value.low_rank) prev = fmaf(x.a, x.dsa[j], prev);
          if constexpr (Form::value.output_before_update) prev = fmaf(g.scale * x.q, x.d_o[j], prev);
          dS[j] = prev;
        }
      }

      // The reductions over V, every row_sum_tokens tokens (at the chunk's last tokens, the ones there are):
      // lane l finishes row l % BK for tokens first + l / BK, ...
      if ((first & sum_mask) != 0) continue;
      __syncwarp();
      const int count = min(g.row_sum_tokens, span.length - first);
      for (int i = lane >> bk_shift; i < count; i += 32 >> bk_shift) {
        const float* partial = sums + i * Q::token_floats + my_row_in_warp * g.VG;
        float total[Q::count];
        if (g.VG == 8)
          row_totals<8>(partial, g.VG, total);
        else if (g.VG == 4)
          row_totals<4>(partial, g.VG, total);
        else
          row_totals<0>(partial, g.VG, total);
        const float* record = records + (first + i) * record_floats;
        const float q_k = record[KV::q * g.block_rows() + my_row],
                    k_k = record[KV::k * g.block_rows() + my_row];
        float dq = total[Q::dq], dk = total[Q::dk];
        if constexpr (Form::value.bonus) {
          const float v_dot_do = total[Q::v_dot_do];
          dq = fmaf(v_dot_do * u_mine, k_k, dq);
          dk = fmaf(g.scale * v_dot_do * u_mine, q_k, dk);
          du = fmaf(g.scale * v_dot_do * q_k, k_k, du);
        }
        const std::int64_t at = first_at + (first + i) * (g.H * g.K);
        if (d.dq_fp32)
          d.dq_fp32[at] = g.scale * dq;
        else if (d.dq)
          d.dq[at] = from_float<T>(g.scale * dq);
        float dg = 0;
        if constexpr (KV::per_key_gate)  // d/dg of exp(g): the decay's gradient times the decay
          dg = total[Q::dg] * record[KV::g * g.block_rows() + my_row];
        if (d.add_dk_dg) {
          dk += to_float(d.dk[at]);
          if constexpr (KV::per_key_gate) dg += to_float(d.dg[at]);
        }
        d.dk[at] = from_float<T>(dk);
        if constexpr (KV::per_key_gate)
          d.dg[at] = from_float<T>(dg);
        else  // summed over K, then times the head's decay, by sum_key_terms_kernel
          dg_rows[at] = total[Q::dg];
        if constexpr (Form::value.low_rank) {
          d.da[at] = from_float<T>(total[Q::da]);
          d.db[at] = from_float<T>(total[Q::db]);
        }
      }
      __syncwarp();
    }
  }
  if (active && d.dh0)  // null for a segment's row pass but the first's: its column pass hands dS on
    for (int j = 0; j < SPAN; ++j) d.dh0[state_base + j] = dS[j];
  if constexpr (Form::value.bonus) {  // lanes l, l + BK, ... hold parts of row l's du
    for (int m = g.BK; m < 32; m <<= 1) du += __shfl_xor_sync(kFullWarp, du, m);
    if (lane < g.BK) du_partial[std::int64_t(bh) * g.K + blockIdx.y * g.block_rows() + my_row] = du;
  }
}

}  // namespace flabench::fused
