// fused_recurrent backward, row pass: the gradients that reduce over V (dq, dk, dg, da, db, du) need the
// forward state and its gradient side by side. A lane keeps SPAN (8 or 16) state elements, 8 columns of one
// or two rows (layout.h, lane_rows); a warp holds BK rows and a block W of them (sharing the staged value
// vectors), and the blocks of a head split K.
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
  __host__ __device__ static constexpr int floats(int rows, int V) {
    return keys_floats(rows) + value_vectors * padded_values(V);
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
         sizeof(float) * (kChunk * RowRecord<Form>::floats(g.block_rows(), g.V) +
                          g.W_rows * sum_tokens * RowSums<Form>::token_floats);
}

template <class Form, class T>
__device__ void convert_row_chunk(const StagePlan& plan, const char* slot, int length, const Geometry& g,
                                  float* records) {
  using KV = KeyVectors<Form>;
  using R = RowRecord<Form>;
  const int rows = g.block_rows(), record = R::floats(rows, g.V);
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
      store8(
          records + s * record + R::keys_floats(rows) + which * padded_values(g.V) + group * (kRowValues + 4),
          x);
    }
  }
  __syncthreads();
}

// A lane's rows' scalars and its kRowValues values of each value vector, at one token.
template <class Form, int SPAN>
struct RowToken {
  static constexpr int kRows = lane_rows(SPAN), N = kRowValues;
  float q[kRows], k[kRows], decay[kRows], a[kRows], b[kRows];
  float v[N], d_o[N], sa[N], dsa[N];

  // `row0`: the lane's first row within the block (even where it has two, so a pair is one 8-byte read).
  // `gradients`: also do and dS^T b, which only the backward step reads.
  __device__ void load(const float* record, const Geometry& g, int row0, int value_group, float head_decay,
                       bool gradients) {
    using KV = KeyVectors<Form>;
    using R = RowRecord<Form>;
    const int rows = g.block_rows();
    read_rows(q, record + KV::q * rows + row0);
    read_rows(k, record + KV::k * rows + row0);
    if constexpr (KV::per_key_gate)
      read_rows(decay, record + KV::g * rows + row0);
    else
      for (int r = 0; r < kRows; ++r) decay[r] = head_decay;
    if constexpr (KV::low_rank) {
      read_rows(a, record + KV::a * rows + row0);
      read_rows(b, record + KV::b * rows + row0);
    }
    const int stride = padded_values(g.V);
    const float* values = record + R::keys_floats(rows) + value_group * (N + 4);
    load_floats(v, values + R::v * stride);
    if constexpr (Form::value.low_rank) load_floats(sa, values + R::sa * stride);
    if (gradients) {
      load_floats(d_o, values + R::d_o * stride);
      if constexpr (Form::value.low_rank) load_floats(dsa, values + R::dsa * stride);
    }
  }
  // S_t (into `to`) from S_{t-1} (`from`; the same array for in place)
  __device__ void step(const float (&from)[kRows][N], float (&to)[kRows][N]) const {
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int j = 0; j < N; ++j) {
        float next = fmaf(decay[r], from[r][j], k[r] * v[j]);
        if constexpr (Form::value.low_rank) next = fmaf(b[r], sa[j], next);
        to[r][j] = next;
      }
  }
  __device__ void step(float (&S)[kRows][N]) const {
    step(S, S);
  }

 private:
  __device__ static void read_rows(float (&x)[kRows], const float* at) {
    if constexpr (kRows == 2) {
      const float2 two = *reinterpret_cast<const float2*>(at);
      x[0] = two.x, x[1] = two.y;
    } else {
      x[0] = *at;
    }
  }
};

// One partial sum per lane from a lane's kRows rows' partials: with two rows, the lanes of a row group's
// lower half keep its first row and the upper half its second, each adding the partial of the lane VG / 2
// away (the same values of the other row), so a row's partials lie in VG / 2 consecutive lanes and the
// reduction reads them as it reads a one-row lane's.
template <int kRows>
__device__ __forceinline__ float fold_rows(const float (&partial)[kRows], int lane, int VG) {
  if constexpr (kRows == 1) {
    return partial[0];
  } else {
    const bool upper = (lane & (VG / 2)) != 0;
    const float mine = upper ? partial[1] : partial[0], theirs = upper ? partial[0] : partial[1];
    return mine + __shfl_xor_sync(kFullWarp, theirs, VG / 2);
  }
}

// A row's totals at one token: each of the N quantities' partial sums (32 apart) over the row's `lanes`
// consecutive lanes. kLanes: that count as a compile-time constant (4 and 8, where every layout an H100
// picks for the peer shapes puts it: the loads unrolled, no loop), or 0 for the run-time `count`.
template <int kLanes, int N>
__device__ __forceinline__ void row_totals(const float* partial, int count, float (&total)[N]) {
  const int lanes = kLanes > 0 ? kLanes : count;
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
  using Token = RowToken<Form, SPAN>;
  constexpr int kRows = Token::kRows, N = Token::N;
  using Rows = float[kRows][N];  // a lane's part of a state: kRows rows of N columns
  extern __shared__ __align__(16) char smem[];
  float* records = reinterpret_cast<float*>(smem + kStages * plan.slot_bytes());
  const int record_floats = R::floats(g.block_rows(), g.V);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int sum_mask = g.row_sum_tokens - 1;
  float* sums = records + kChunk * record_floats +
                warp * g.row_sum_tokens * Q::token_floats;  // [row_sum_tokens][Q::count][32 lanes]
  const int bh = blockIdx.x, b = bh / g.H, h = bh % g.H;
  const int row_group = lane / g.VG, value_group = lane % g.VG;
  const bool active = row_group < g.BK / kRows;
  const int row0 = warp * g.BK + (active ? row_group * kRows : 0);  // the lane's first row within the block
  const int k0 = blockIdx.y * g.block_rows() + row0;
  const int v0 = value_group * N;
  const std::int64_t state_base = std::int64_t(bh) * g.K * g.V + std::int64_t(k0) * g.V + v0;
  // The reductions give lane l row l % BK of its warp, for tokens l / BK, l / BK + 32 / BK, ... (BK a power
  // of two: shifts and masks, no divisions); that row's bonus is the one it needs there. Its partials lie
  // in row_lanes consecutive lanes (fold_rows).
  const int bk_shift = __ffs(g.BK) - 1, my_row_in_warp = lane & (g.BK - 1), row_lanes = g.VG / kRows;
  const int my_row = warp * g.BK + my_row_in_warp;
  const float u_mine =
      Form::value.bonus ? to_float(p.u[h * g.K + blockIdx.y * g.block_rows() + my_row]) : 0.0f;
  const auto load_rows = [&](Rows& x, const float* at) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) load_floats(x[r], at + r * g.V);
  };
  const auto copy_rows = [](Rows& to, const Rows& from) {
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int j = 0; j < N; ++j) to[r][j] = from[r][j];
  };
  // sum over the lane's columns of x y, per row, folded to the lane's one partial
  const auto rows_dot = [&](const Rows& x, const float(&y)[N]) {
    float partial[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) partial[r] = dot(x[r], y);
    return fold_rows<kRows>(partial, lane, g.VG);
  };
  const auto rows_dot_rows = [&](const Rows& x, const Rows& y) {
    float partial[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) partial[r] = dot(x[r], y[r]);
    return fold_rows<kRows>(partial, lane, g.VG);
  };

  Rows dS;
  load_rows(dS, d.d_ht + state_base);
  float du = 0;

  const ChunkRing ring{plan, smem, g.chunks, b, h, g.T, g.H, /*reverse=*/true};
  ring.prime();
  HeadGates<KV, T> gates(p.g, g, b, h, g.chunks, kChunk, /*reverse=*/true);

  for (int index = 0; index < g.chunks; ++index) {
    const int chunk = g.chunks - 1 - index;
    Rows S0;  // the state before the chunk's first token
    load_rows(S0,
              checkpoints + (std::int64_t(bh) * g.chunks + chunk) * g.K * g.V + std::int64_t(k0) * g.V + v0);
    ring.acquire(index);
    const ChunkSpan span = chunk_span(index, g.chunks, g.T, true);
    // where this lane's row of the chunk's first token goes in [B, T, H, K]; later tokens are H * K on
    const std::int64_t first_at = token_row(b, span.t0, h, g) * g.K + blockIdx.y * g.block_rows() + my_row;
    gates.advance(index);
    convert_row_chunk<Form, T>(plan, ring.slot(index), span.length, g, records);
    auto token = [&](int s, bool gradients) {
      Token x;
      x.load(records + s * record_floats, g, row0, value_group, gates.decay(s), gradients);
      return x;
    };

    // The state before token kMid: the sub-chunks from there on recompute from it rather than from S0.
    Rows S_mid;
    copy_rows(S_mid, S0);
    for (int s = 0; s < (span.length > kMid ? kMid : 0); ++s) token(s, false).step(S_mid);

    for (int first = (span.length - 1) / kSub * kSub; first >= 0; first -= kSub) {
      const bool late = first >= kMid;
      // states[i]: the state before token first + i; each made from the one before in place of a copy
      float states[kSub + 1][kRows][N];
      if (late)
        copy_rows(states[0], S_mid);
      else
        copy_rows(states[0], S0);
      for (int s = late ? kMid : 0; s < first; ++s) token(s, false).step(states[0]);
#pragma unroll
      for (int i = 0; i < kSub; ++i)  // the last token's step only where the output reads S_t
        if (first + i < span.length && (i + 1 < kSub || !Form::value.output_before_update))
          token(first + i, false).step(states[i], states[i + 1]);
#pragma unroll
      for (int i = kSub - 1; i >= 0; --i) {
        const int s = first + i;
        if (s >= span.length) continue;
        const Token x = token(s, true);
        // the state the output read: S_{t-1}, or S_t
        const Rows& S_read = states[Form::value.output_before_update ? i : i + 1];
        if constexpr (!Form::value.output_before_update) {
#pragma unroll
          for (int r = 0; r < kRows; ++r)
#pragma unroll
            for (int j = 0; j < N; ++j) dS[r][j] = fmaf(g.scale * x.q[r], x.d_o[j], dS[r][j]);
        }
        float* out = sums + (s & sum_mask) * Q::token_floats + lane;
        out[Q::dq * 32] = rows_dot(S_read, x.d_o);
        out[Q::dk * 32] = rows_dot(dS, x.v);
        out[Q::dg * 32] = rows_dot_rows(dS, states[i]);
        if constexpr (Form::value.low_rank) {
          out[Q::db * 32] = rows_dot(dS, x.sa);
          out[Q::da * 32] = rows_dot(states[i], x.dsa);
        }
        if constexpr (Form::value.bonus) {  // v . do: the same partial for either row
          float v_dot_do[kRows];
#pragma unroll
          for (int r = 0; r < kRows; ++r) v_dot_do[r] = dot(x.v, x.d_o);
          out[Q::v_dot_do * 32] = fold_rows<kRows>(v_dot_do, lane, g.VG);
        }
#pragma unroll
        for (int r = 0; r < kRows; ++r)
#pragma unroll
          for (int j = 0; j < N; ++j) {  // dS <- dL/dS_{t-1}
            float prev = x.decay[r] * dS[r][j];
            if constexpr (Form::value.low_rank) prev = fmaf(x.a[r], x.dsa[j], prev);
            if constexpr (Form::value.output_before_update) prev = fmaf(g.scale * x.q[r], x.d_o[j], prev);
            dS[r][j] = prev;
          }
      }

      // The reductions over V, every row_sum_tokens tokens (at the chunk's last tokens, the ones there are):
      // lane l finishes row l % BK for tokens first + l / BK, ...
      if ((first & sum_mask) != 0) continue;
      __syncwarp();
      const int count = min(g.row_sum_tokens, span.length - first);
      for (int i = lane >> bk_shift; i < count; i += 32 >> bk_shift) {
        const float* partial = sums + i * Q::token_floats + my_row_in_warp * row_lanes;
        float total[Q::count];
        if (row_lanes == 8)
          row_totals<8>(partial, row_lanes, total);
        else if (row_lanes == 4)
          row_totals<4>(partial, row_lanes, total);
        else
          row_totals<0>(partial, row_lanes, total);
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
        d.dq[at] = from_float<T>(g.scale * dq);
        d.dk[at] = from_float<T>(dk);
        if constexpr (KV::per_key_gate)  // d/dg of exp(g): the decay's gradient times the decay
          d.dg[at] = from_float<T>(total[Q::dg] * record[KV::g * g.block_rows() + my_row]);
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
  if (active)
    for (int r = 0; r < kRows; ++r)
      for (int j = 0; j < N; ++j) d.dh0[state_base + std::int64_t(r) * g.V + j] = dS[r][j];
  if constexpr (Form::value.bonus) {  // lanes l, l + BK, ... hold parts of row l's du
    for (int m = g.BK; m < 32; m <<= 1) du += __shfl_xor_sync(kFullWarp, du, m);
    if (lane < g.BK) du_partial[std::int64_t(bh) * g.K + blockIdx.y * g.block_rows() + my_row] = du;
  }
}

}  // namespace flabench::fused
