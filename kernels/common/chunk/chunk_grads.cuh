// The chunk variant's gradients inside each chunk: the products on the tensor cores (fp32 inputs in 3xTF32),
// in two kernels that split the chunk differently so that K = V = 128 fits at every chunk size
// (staging the whole chunk took 420 KiB there). Both start from the gradient of the
// state after the chunk (dS, the state-gradient pass) and the forward's state before it (S0).
//   value grads  one block per (batch, head, chunk, 64 values), all key channels at once or a tile at a time:
//                dv_s = scale (sum_i A_is do_i + bonus_s do_s) + (k_s e^{decay after s to the chunk's end})
//                dS, with A as the forward's output pass kept it (gsa's passes: rebuilt as it builds it,
//                intra_chunk.cuh). Where A is rebuilt whole, the block can also make the pass's forward
//                output o = (q e^{seen from the start}) S0 + A v (kOutput: gsa's dq, pass 1's output taken
//                transposed; kernels/gsa/chunk_backward.cuh), from the forward's states.
//   key grads    one block per (batch, head, chunk, 32 key channels): dA_is = do_i . v_s, (do S0^T) and
//                (v dS^T) over value tiles, then per channel c
//                dq_ic = scale (e^{seen from the chunk's start} (do S0^T)_ic + sum_s dA_is k_sc e^{G_i -
//                G_s}), dk_sc = scale sum_i dA_is q_ic e^{G_i - G_s} + e^{decay after s} (v dS^T)_sc, the
//                sums factorised as A's are (intra_chunk.cuh: between sub-chunks through factors <= 1, within
//                one through e^{-local} for the gentle channels, element by element for the steep ones), and
//                dg by the cancellation-free walk of tests/kernels/chunk_form.h.
#pragma once

#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/output_products.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/lane_sum.cuh"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

// Values per step of the key-gradient kernel's loop over V: 64 for 16-bit inputs (one step at V = 64, staged
// with q, k and the gates in one trip to memory), 32 for fp32 (its rows twice as wide).
__host__ __device__ constexpr int key_grad_values(int input_bytes) {
  return input_bytes == 2 ? 64 : 32;
}

// Where the value gradients take the chunk's scores A (and rwkv6's bonus) from: rebuilt from q, k and the
// decays as the forward builds them, over all K at once or a key tile at a time, or read from what the
// forward's output pass saved (Workspace::scores).
enum class Scores { rebuilt, rebuilt_in_tiles, saved };

// Where launch_backward's value gradients take A from: saved by the forward, or rebuilt, a key tile at a time
// where value_grads_key_tile says.
inline Scores value_grads_scores(bool saved, int C, int K) {
  if (saved) return Scores::saved;
  return value_grads_key_tile(C, K) < K ? Scores::rebuilt_in_tiles : Scores::rebuilt;
}
// The key channels the value gradients stage at a time (A's share where they rebuild it, then the state
// product's): all K where A is rebuilt whole, else value_grads_key_tile's.
__host__ __device__ inline int value_grads_channels(Scores scores, int C, int K) {
  return scores == Scores::rebuilt ? K : value_grads_key_tile(C, K);
}

// The value gradients' room with KT key channels staged at a time (all K, or value_grads_key_tile's): the
// decays, q and k where A is rebuilt, the room k e^{...} takes (q's), A, the bonus, do and dS. With the
// forward output (`output`) v takes k's room once A is built (grown where a row of v is wider) and S0 dS's
// until the output is made.
__host__ __device__ inline int value_grads_floats(int C, int KT, int input_bytes, bool rebuilds,
                                                  bool output = false) {
  const int value_rows = input_rows_floats(C, kGradValues, input_bytes),
            k_room = output ? max(C * (KT + kPad), value_rows) : C * (KT + kPad);
  const int rebuilding = rebuilds ? Decays::floats(C, KT) + k_room + intra_chunk_scratch_ints(C, KT) : 0;
  return rebuilding + C * (KT + kPad) + C * (C + kPad) + C + value_rows + KT * (kGradValues + 8);
}
// The key-gradient kernel's room shared by its value loop's tiles (v and do [C][values], S0 and dS as
// [32][values + 8]) and, after the loop, its four [C][32 + pad] terms (state and intra-chunk, of dq and dk)
// and the dg walk's sums (four of 32 channels per 32 threads).
__host__ __device__ inline int key_grads_shared_room(int C, int input_bytes) {
  const int values = key_grad_values(input_bytes);
  return max(2 * input_rows_floats(C, values, input_bytes) + 2 * kKeyTile * (values + 8),
             4 * C * (kKeyTile + kPad) + 4 * key_grads_threads(C, input_bytes));
}
// The key-gradient kernel's factors of the sub-chunk pairs (I, J <= I) per channel.
__host__ __device__ inline int pair_factors_floats(int C) {
  const int subs = C / kSubChunk;
  return subs * (subs + 1) / 2 * kKeyTile;
}
__host__ __device__ inline int key_grads_floats(int C, int input_bytes) {
  constexpr int ldT = kKeyTile + kPad;
  // decays, q, k, dA and its diagonal, the shared room, S0 . dS per channel, the pairs' factors
  return Decays::floats(C, kKeyTile) + 2 * C * ldT + C * (C + kPad) + C +
         key_grads_shared_room(C, input_bytes) + kKeyTile + pair_factors_floats(C);
}

// kScores: where A comes from (Scores). kOutput (with A rebuilt whole only): p.o gets the pass's forward
// output, from A, v and the forward's states (ws.states) once A is built, before A^T do (q from
// ws.queries_fp32 and each row of o times ws.output_row_scales where those are set). Rebuilt in tiles
// (value_grads_key_tile), in two rounds: the tiles' shares of A and the bonus (intra_chunk_scores' add-into-A
// form), then, after A^T do, their shares of the state product (k e^{...} and dS staged a tile at a time), so
// that no accumulator lives through a tile's scores. Saved: A, the bonus, do and the first tile in one trip
// to memory, then the same state product. 64 registers, for two blocks of 512 threads an SM where shared
// memory allows them; every instance fits without a spill (ptxas) but fp32's with kOutput (8/16 bytes).
template <class Form, class T, Scores kScores, bool kOutput = false>
__global__ void __launch_bounds__(kValueGradMaxThreads, 2)
    chunk_value_grads_kernel(Pointers<T> p, GradPointers<T> g, Dims d, Workspace ws) {
  static_assert(!kOutput || (kScores == Scores::rebuilt && !Form::value.bonus),
                "the forward output from A rebuilt whole, without a bonus");
  extern __shared__ float smem[];
  constexpr bool kRebuilds = kScores != Scores::saved;
  constexpr int kVT = kGradValues, kLdV = kVT + kPad;
  const int K = d.K, V = d.V, C = d.C, KT = value_grads_channels(kScores, C, K), ldK = KT + kPad,
            ldC = C + kPad;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, j0 = blockIdx.z * kVT;
  const int t0 = n * C, length = min(C, d.T - t0);
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  Decays dec = Decays::carve(smem, C, KT);                    // of the KT channels staged (rebuilt A)
  float* q = smem + (kRebuilds ? Decays::floats(C, KT) : 0);  // [C][KT + pad]
  float* k = q + C * ldK;                                     // [C][KT + pad] (rebuilt A), then v (kOutput)
  const int k_room = kOutput ? max(C * ldK, input_rows_floats(C, kVT, sizeof(T))) : C * ldK;
  float* A = k + (kRebuilds ? k_room : 0);  // [C][C + pad]
  float* bonus = A + C * ldC;               // [C]
  // do as the input is (bf16/fp16: B fragments by ldmatrix) or fp32, [C][64]
  using Staged = std::conditional_t<sizeof(T) == 2, T, float>;
  constexpr int kLdO = sizeof(T) == 2 ? kVT + 8 : kLdV;
  auto* dO = reinterpret_cast<Staged*>(bonus + C);
  // dS, the gradient of the state after the chunk (its KT rows of the tile): bf16's as two 16-bit planes
  // [KT][64 + 8] (B fragments by ldmatrix against the bf16 operand below), else fp32 [KT][64 + pad]; in
  // [KT][64 + 8] fp32's room
  using X = Prepared<T>;
  constexpr bool kFragments = std::is_same_v<X, __nv_bfloat16>;
  constexpr int kLdPlane = kVT + 8;
  float* dS = bonus + C + input_rows_floats(C, kVT, sizeof(T));
  auto* dS_planes = reinterpret_cast<X*>(dS);
  int* scratch = reinterpret_cast<int*>(dS + KT * kLdPlane);  // intra_chunk_scores' (rebuilt A)
  const float* dS_rows = ws.dstates + chunk * K * V;
  // The forward's scan operand k e^{decay to the chunk's end} into q's room (free once A is built): bf16 as
  // it is, its rows (16-byte multiples, an odd number of them: ldmatrix's 8 rows on distinct banks) loaded
  // as A fragments; fp16's fp32 operand (workspace.cuh) read element by element. (Made here from k instead,
  // it took longer than the load: notes, version 27.)
  const int ldX = KT + (kFragments ? 8 : kPad);
  X* keys = reinterpret_cast<X*>(q);
  const X* keys_rows = reinterpret_cast<const X*>(ws.keys_to_end) + chunk * C * K;
  // the state product's operands for key channels c0 .. c0 + KT
  const auto keys_tile = [&](int c0) { return rows_of(keys_rows, C, K, c0, KT, keys, ldX); };
  const auto dS_tile = [&](int c0) {
    return staged_state<std::conditional_t<kFragments, X, float>>(dS_rows, d, c0, KT, j0, kVT, dS,
                                                                  kFragments ? kLdPlane : kLdV);
  };
  const auto q_rows = [&](int c0) { return token_rows(p.q, d, b, h, t0, C, K, c0, KT, q, ldK); };
  const auto k_rows = [&](int c0) { return token_rows(p.k, d, b, h, t0, C, K, c0, KT, k, ldK); };
  const auto do_rows = token_rows(g.d_o, d, b, h, t0, C, V, j0, kVT, dO, kLdO);
  const T* u = Form::value.bonus ? p.u + h * K : nullptr;
  if constexpr (kScores == Scores::saved) {
    stage_tiles(rows_of(ws.scores + chunk * C * C, C, C, A, ldC), do_rows, keys_tile(0), dS_tile(0));
    if constexpr (Form::value.bonus)
      for (int i = threadIdx.x; i < C; i += int(blockDim.x)) bonus[i] = ws.bonus[chunk * C + i];
    __syncthreads();
  } else if constexpr (kScores == Scores::rebuilt_in_tiles) {
    zero_intra_chunk_scores(A, ldC, C, bonus);
    for (int c0 = 0; c0 < K; c0 += KT) {
      __syncthreads();  // the last tile's reads are done
      if (c0 == 0)
        stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, q_rows(c0), k_rows(c0), do_rows);
      else
        stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, q_rows(c0), k_rows(c0));
      intra_chunk_scores<Form, T, true>(dec, q, k, ldK, KT, C, A, ldC, u ? u + c0 : nullptr, bonus, scratch);
    }
    finish_intra_chunk_scores<Form>(A, ldC, C);
    __syncthreads();
    stage_tiles(keys_tile(0), dS_tile(0));
  }

  // Each warp's share of the [C][64] results: a 16-row strip from m0, `tiles` 8-column tiles from n0.
  constexpr int kMaxTiles = kMaxStripTiles;
  struct Strip {
    int tiles, m0, n0;
  };
  const auto strip = [&] {
    const int warp = threadIdx.x / 32, strips = C / kSubChunk, tiles = value_grads_tiles(C, int(blockDim.x));
    return Strip{tiles, (warp % strips) * kSubChunk, (warp / strips) * 8 * tiles};
  };
  if constexpr (kScores == Scores::rebuilt && kOutput) {
    // o as the output pass makes it (forward.cuh, output_products.cuh) from the forward's state before the
    // chunk (its rows of the value tile as StatePart<T>, in dS's room until o is made) and v (as the inputs
    // are, in k's room once A is built), rows kLdOut apart; then dS with the keys
    constexpr int kLdOut = sizeof(T) == 2 ? kVT + 8 : kLdV;
    float* S0 = dS;
    auto* v = reinterpret_cast<Staged*>(k);
    const auto S0_rows = staged_state<StatePart<T>>(ws.states + chunk * K * V, d, 0, K, j0, kVT, S0, kLdOut);
    if (ws.queries_fp32)
      stage_with_decays<Form>(dec, p.g, d, b, h, t0, 0,
                              token_rows(ws.queries_fp32, d, b, h, t0, C, K, 0, K, q, ldK), k_rows(0),
                              do_rows, S0_rows);
    else
      stage_with_decays<Form>(dec, p.g, d, b, h, t0, 0, q_rows(0), k_rows(0), do_rows, S0_rows);
    intra_chunk_scores<Form, T>(dec, q, k, ldK, K, C, A, ldC, u, bonus, scratch);
    stage_tiles(token_rows(p.v, d, b, h, t0, C, V, j0, kVT, v, kLdOut));  // ordered by the next barrier
    const auto [tiles, m0, n0] = strip();
    float out[kMaxTiles][4] = {};
    add_output_state_product<T>(out, tiles, m0, n0, dec, q, ldK, K, C, Divisor(K), S0, kLdOut);
    add_output_scores_product<T>(out, tiles, m0, n0, A, ldC, C, v, kLdOut);
    for_each_pair(out, tiles, m0, n0, [&](int i, int j, float& first, float& second) {
      if (i >= length || j0 + j >= V) return;
      const std::int64_t row = d.row(b, h, t0 + i);
      const float factor = ws.output_row_scales ? d.scale * ws.output_row_scales[row] : d.scale;
      store_pair(p.o + row * V + j0 + j, factor * first, factor * second);
    });
    __syncthreads();  // q's and S0's reads are done
    stage_tiles(keys_tile(0), dS_tile(0));
  } else if constexpr (kScores == Scores::rebuilt) {
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, 0, q_rows(0), k_rows(0), do_rows, dS_tile(0));
    intra_chunk_scores<Form, T>(dec, q, k, ldK, K, C, A, ldC, u, bonus, scratch);
    stage_tiles(keys_tile(0));
  }
  const Strip mine = strip();
  const int m0 = mine.m0, n0 = mine.n0;
  // The products with the warp's tile count as a constant (value_grads_tiles: 1, 2 or 4), so that their
  // loops over tiles hold no test, branch and WARPSYNC per tile (kernels/notes/chunk.md, version 60).
  with_one_of<1, 2, kMaxStripTiles>(mine.tiles, [&](auto count) {
    const int tiles = tile_count(count);
    float acc[kMaxTiles][4] = {};
    const auto scores = [&](int s, int i) { return A[i * ldC + s]; };  // A^T, in two parts
    for (int k0 = 0; k0 < C; k0 += 16) {
      if constexpr (sizeof(T) == 2) {
        std::uint32_t af[2][4];
        a_fragment<T>(m0, k0, scores, af[0], af[1]);
        mma_b_stored_kn<T>(acc, tiles, af, dO, kLdO, k0, n0);
      } else {
        mma_k16<T, kMaxTiles>(acc, tiles, m0, n0, k0, scores, [&](int i, int j) { return dO[i * kLdO + j]; });
      }
    }
    for_each_accumulator(acc, tiles, m0, n0, [&](int, int, float& a) { a *= d.scale; });
    // + (k e^{...}) dS over the KT channels staged
    const auto add_state_product = [&] {
      for (int k0 = 0; k0 < KT; k0 += 16) {
        if constexpr (kFragments) {  // dS's high part, then its low part
          std::uint32_t rows[1][4];
          a_stored_mk(rows[0], keys, ldX, m0, k0);
          mma_b_stored_kn<T>(acc, tiles, rows, dS_planes, kLdPlane, k0, n0);
          mma_b_stored_kn<T>(acc, tiles, rows, dS_planes + KT * kLdPlane, kLdPlane, k0, n0);
        } else {  // fp16: both fp32 operands in bf16 parts (dS passes fp16's 65504; keys go below 6e-8)
          using Op = std::conditional_t<std::is_same_v<T, __half>, __nv_bfloat16, T>;
          mma_k16<Op, kMaxTiles, Exact::both>(
              acc, tiles, m0, n0, k0, [&](int s, int c) { return to_float(keys[s * ldX + c]); },
              [&](int c, int j) { return dS[c * kLdV + j]; });
        }
      }
    };
    for (int c0 = 0; c0 < K; c0 += KT) {  // tile 0 was staged above
      if (c0 > 0) {
        __syncthreads();  // the last tile's reads are done
        stage_tiles(keys_tile(c0), dS_tile(c0));
      }
      __syncthreads();
      add_state_product();
    }
    for_each_pair(acc, tiles, m0, n0, [&](int s, int j, float& first, float& second) {
      if (s >= length || j0 + j >= V) return;
      if constexpr (Form::value.bonus) {
        first += d.scale * bonus[s] * to_float(dO[s * kLdO + j]);
        second += d.scale * bonus[s] * to_float(dO[s * kLdO + j + 1]);
      }
      store_pair(g.dv + d.row(b, h, t0 + s) * V + j0 + j, first, second);
    });
  });
}

// kThreads (key_grads_threads): 256 at three blocks to an SM (at most 85 registers; 80 used, no spill:
// without the cap it took 125 registers and ran slower, two blocks to an SM: 1.76 against 1.31 ms at gla
// 4,4096,16,64, C = 32), or 512 at two (64 registers).
template <class Form, class T, int kThreads>
__global__ void __launch_bounds__(kThreads, kThreads == kKeyGradMaxThreads ? 2 : 3)
    chunk_key_grads_kernel(Pointers<T> p, GradPointers<T> g, Dims d, Workspace ws) {
  extern __shared__ float smem[];
  constexpr int KT = kKeyTile, ldT = KT + kPad, kVT = key_grad_values(sizeof(T)), ldV = kVT + kPad;
  constexpr bool exclusive = Form::value.output_before_update;
  const int K = d.K, V = d.V, C = d.C, ldC = C + kPad, subs = C / kSubChunk;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, c0 = blockIdx.z * KT;
  const int t0 = n * C, length = min(C, d.T - t0);
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  Decays dec = Decays::carve(smem, C, KT);
  float* q = smem + Decays::floats(C, KT);  // [C][32 + pad]: q, then q e^{seen within its sub-chunk}
  float* k = q + C * ldT;              // [C][32 + pad]: k, then k e^{decay after it to its sub-chunk's end}
  float* dA = k + C * ldT;             // [C][C + pad]: do_i . v_s where i reads s, else 0
  float* vdo_diagonal = dA + C * ldC;  // [C]: do_i . v_i (rwkv6's bonus)
  float* room = vdo_diagonal + C;      // the value loop's tiles, then the four terms and the dg sums below
  // v and do as the inputs are (bf16/fp16: the products' A and B fragments load by ldmatrix, rows of an odd
  // number of 16-byte vectors keeping its 8 rows on distinct banks) or fp32: [C][values] each.
  using Staged = std::conditional_t<sizeof(T) == 2, T, float>;
  constexpr bool kFragments = sizeof(T) == 2;
  constexpr int ldS = kFragments ? kVT + 8 : ldV;
  Staged* v = reinterpret_cast<Staged*>(room);
  Staged* dO = reinterpret_cast<Staged*>(room + input_rows_floats(C, kVT, sizeof(T)));
  // This tile's rows of S0 (the state before the chunk) and dS (the gradient of the state after it), each in
  // [32][values + 8] fp32's room: bf16/fp16 as two bf16 planes (B fragments by ldmatrix), fp32 as it is
  using Planes = StatePart<T>;
  constexpr int kLdPlane = kVT + 8, kPlane = KT * kLdPlane;
  float* S0 = room + 2 * input_rows_floats(C, kVT, sizeof(T));
  float* dS = S0 + kPlane;
  auto* S0_planes = reinterpret_cast<Planes*>(S0);
  auto* dS_planes = reinterpret_cast<Planes*>(dS);
  float* from_state = room;                // [C][32 + pad]: (do S0^T)
  float* to_state = from_state + C * ldT;  // [C][32 + pad]: (v dS^T)
  float* intra_q = to_state + C * ldT;     // [C][32 + pad]: sum_s dA_is k_sc e^{G_i - G_s}, decayed pairs
  float* intra_k = intra_q + C * ldT;      // [C][32 + pad]: sum_i dA_is q_ic e^{G_i - G_s}, decayed pairs
  float* sums = intra_k + C * ldT;         // [4][kThreads / 32][32]: the dg walk's pieces' sums (below)
  float* before = room + key_grads_shared_room(C, sizeof(T));  // [32]: S0 . dS per channel
  // [pair (I, J <= I)][32]: the factor the intra-chunk products below give sub-chunk J's keys (I's queries),
  // sub_chunk_pair_factor's
  float* pair_factor = before + KT;
  const auto pair = [](int I, int J) { return I * (I + 1) / 2 + J; };
  const auto reads = [](int i, int s) { return exclusive ? s < i : s <= i; };
  // Where this tile's channel c of the chunk's token t lies in q, k, dq, dk (and per-key dg): one multiply a
  // element, not a row's full 64-bit index arithmetic.
  const std::int64_t first_element = d.row(b, h, t0) * K + c0, token_stride = std::int64_t(d.H) * K;
  const auto element = [&](int t, int c) { return first_element + t * token_stride + c; };
  const auto undecayed = [](int i, int s) { return s == (exclusive ? i - 1 : i); };

  // The value loop's tiles from value j0 on, handed to stage (the first step's go with q, k and the gates:
  // one trip to memory where V fits one step).
  const float* S0_rows = ws.states + chunk * K * V;
  const float* dS_rows = ws.dstates + chunk * K * V;
  const auto value_tiles = [&](int j0, const auto& stage) {
    constexpr int ld = kFragments ? kLdPlane : ldV;
    stage(token_rows(p.v, d, b, h, t0, C, V, j0, kVT, v, ldS),
          token_rows(g.d_o, d, b, h, t0, C, V, j0, kVT, dO, ldS),
          staged_state<Planes>(S0_rows, d, c0, KT, j0, kVT, S0, ld),
          staged_state<Planes>(dS_rows, d, c0, KT, j0, kVT, dS, ld));
  };
  for (int c = threadIdx.x; c < KT; c += kThreads) before[c] = 0;
  value_tiles(0, [&](const auto&... tiles) {
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, token_rows(p.q, d, b, h, t0, C, K, c0, KT, q, ldT),
                            token_rows(p.k, d, b, h, t0, C, K, c0, KT, k, ldT), tiles...);
  });

  // Over value tiles: dA (C x C), do S0^T and v dS^T (C x 32). Each warp a strip of 16 rows and up to 4
  // (dA) or 2 (the state products) 8-column tiles, so a row fragment serves every tile of the strip.
  const int warp = threadIdx.x / 32, strips = C / 16, group = warp / strips,
            groups = strip_groups(C, kThreads);
  struct Strip {
    int m0, n0, count;
  };
  const auto strip_of = [&](int columns) {
    const int per_warp = strip_run(columns, groups);
    return Strip{(warp % strips) * 16, group * per_warp * 8, min(per_warp, columns / 8 - group * per_warp)};
  };
  const Strip scores = strip_of(C), states = strip_of(KT);
  float dA_acc[4][4] = {}, from_acc[2][4] = {}, to_acc[2][4] = {};
  // The loop over value tiles with each warp's tile counts: constants where every warp has the same
  // (key_grads_even_tiles), else scores.count and states.count.
  const auto over_values = [&](auto scores_tiles, auto states_tiles) {
    const int scores_count = tile_count(scores_tiles), states_count = tile_count(states_tiles);
    for (int j0 = 0; j0 < V; j0 += kVT) {
      if (j0 > 0) {  // the first step's tiles came with q and k
        __syncthreads();
        value_tiles(j0, [](const auto&... tiles) { stage_tiles(tiles...); });
        __syncthreads();
      }
      {  // S0 . dS of each channel: kParts neighbouring lanes to a channel, kVT / kParts values each
        constexpr int kParts = kThreads / KT;
        const int c = threadIdx.x / kParts, part = threadIdx.x % kParts;
        const auto value = [&](const float* tile, const Planes* planes, int j) {
          if constexpr (kFragments)
            return to_float(planes[c * kLdPlane + j]) + to_float(planes[kPlane + c * kLdPlane + j]);
          else
            return tile[c * ldV + j];
        };
        float sum = 0;
        for (int j = part; j < kVT; j += kParts) sum += value(S0, S0_planes, j) * value(dS, dS_planes, j);
        sum = sum_over_lanes(sum, kParts);
        if (part == 0) before[c] += sum;
      }
      for (int k0 = 0; k0 < kVT; k0 += 16) {
        if constexpr (kFragments) {
          // The strip's rows of do and v as A fragments; v's rows as B fragments of dA (stored [n][k]).
          std::uint32_t do_rows[4], v_rows[4];
          a_stored_mk(do_rows, dO, ldS, scores.m0, k0);
          a_stored_mk(v_rows, v, ldS, scores.m0, k0);
          mma_b_stored_nk<T>(dA_acc, scores_count, do_rows, v, ldS, k0, scores.n0);
          // S0^T and dS^T (stored [n][k]): the high planes, then the low planes
          mma_state_planes_nk<T>(from_acc, states_count, do_rows, S0_planes, kPlane, kLdPlane, k0, states.n0);
          mma_state_planes_nk<T>(to_acc, states_count, v_rows, dS_planes, kPlane, kLdPlane, k0, states.n0);
        } else {
          if (scores_count > 0)
            mma_k16<T>(
                dA_acc, scores_count, scores.m0, scores.n0, k0, [&](int i, int j) { return dO[i * ldS + j]; },
                [&](int j, int s) { return v[s * ldS + j]; });
          if (states_count > 0) {
            mma_k16<T, 2, Exact::b>(
                from_acc, states_count, states.m0, states.n0, k0,
                [&](int i, int j) { return dO[i * ldS + j]; }, [&](int j, int c) { return S0[c * ldV + j]; });
            mma_k16<T, 2, Exact::b>(
                to_acc, states_count, states.m0, states.n0, k0, [&](int s, int j) { return v[s * ldS + j]; },
                [&](int j, int c) { return dS[c * ldV + j]; });
          }
        }
      }
    }
  };
  bool even = false;
  with_one_of<kSubChunk, 2 * kSubChunk, kMaxChunk>(C, [&](auto chunk) {
    constexpr int kScores = key_grads_even_tiles(chunk.value, chunk.value, kThreads),
                  kStates = key_grads_even_tiles(chunk.value, KT, kThreads);
    if constexpr (kScores > 0 && kStates > 0) {
      over_values(std::integral_constant<int, kScores>{}, std::integral_constant<int, kStates>{});
      even = true;
    }
  });
  if (!even) over_values(scores.count, states.count);
  __syncthreads();  // the tiles' room takes the terms below
  if (scores.count > 0)
    for_each_accumulator(dA_acc, scores.count, scores.m0, scores.n0, [&](int i, int s, float& a) {
      dA[i * ldC + s] = reads(i, s) ? a : 0.f;
      if (i == s) vdo_diagonal[i] = a;
    });
  if (states.count > 0) {
    for_each_accumulator(from_acc, states.count, states.m0, states.n0,
                         [&](int i, int c, float& a) { from_state[i * ldT + c] = a; });
    for_each_accumulator(to_acc, states.count, states.m0, states.n0,
                         [&](int s, int c, float& a) { to_state[s * ldT + c] = a; });
  }
  __syncthreads();

  // The undecayed pair (s = i, or s = i - 1 when the output reads the state before the update) apart: its
  // terms cancel out of dg. Within a sub-chunk, the channels whose decay there exceeds e^40 (see
  // intra_chunk.cuh) element by element; the others go through the tensor cores below.
  const auto gentle = [&](int I, int c) { return gentle_channel(dec, I, c); };
  for (int idx = threadIdx.x; idx < C * KT; idx += kThreads) {
    const int i = idx / KT, c = idx % KT, I = i / kSubChunk, first = I * kSubChunk, last = first + kSubChunk;
    float decayed_q = 0, decayed_k = 0;
    if (!gentle(I, c)) {
      for (int s = first; s <= i; ++s)
        if (reads(i, s) && !undecayed(i, s))
          decayed_q += k[s * ldT + c] * exp_flushed(dec.seen(i, c) - dec.local[s * KT + c]) * dA[i * ldC + s];
      for (int r = i; r < last; ++r)  // r reads i
        if (reads(r, i) && !undecayed(r, i))
          decayed_k += q[r * ldT + c] * exp_flushed(dec.seen(r, c) - dec.local[i * KT + c]) * dA[r * ldC + i];
    }
    intra_q[i * ldT + c] = decayed_q, intra_k[i * ldT + c] = decayed_k;
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < C * KT; idx += kThreads) {
    const int t = idx / KT, c = idx % KT;
    q[t * ldT + c] *= exp_flushed(dec.seen(t, c));
    k[t * ldT + c] *= exp_flushed(dec.total[(t / kSubChunk) * KT + c] - dec.local[idx]);
  }
  for (int idx = threadIdx.x; idx < pair_factors_floats(C); idx += kThreads) {
    const int c = idx % KT;
    int I = 0, J = idx / KT;  // the pair's index to (I, J)
    while (J > I) J -= ++I;
    pair_factor[idx] = sub_chunk_pair_factor(dec, I, J, c);
  }
  __syncthreads();

  // On the tensor cores, one warp per sub-chunk and side, the undecayed pair masked out. dq's rows of
  // sub-chunk I: sum over J < I of dA_IJ (k_J to J's end, times the sub-chunks between) and, for the gentle
  // channels, dA_II (k e^{-local}); then e^{seen}. dk's rows of sub-chunk J: sum over I > J of dA_IJ^T (q_I
  // to I's start, times the sub-chunks between) and, for the gentle channels, dA_JJ^T (q to J's start times
  // e^{-total_J}); then the decay to J's end. Every operand is an fp32 value, so each goes in two bf16 parts
  // (fp16 inputs too: e^{-local} needs bf16's range).
  using Op = std::conditional_t<std::is_same_v<T, float>, float, __nv_bfloat16>;
  const auto masked = [&](int i, int s) { return undecayed(i, s) ? 0.f : dA[i * ldC + s]; };
  // A job is one sub-chunk, one side and 16 of the 32 channels: 4 subs jobs keep 8 warps busy at C = 32.
  for (int job = warp; job < 4 * subs; job += kThreads / 32) {
    const int side_job = job / 2, n0 = (job % 2) * 16;
    float acc[2][4] = {};
    if (side_job < subs) {
      const int I = side_job;
      for (int J = 0; J <= I; ++J)
        mma_k16<Op, 2, Exact::both>(acc, 2, I * kSubChunk, n0, J * kSubChunk, masked, [&](int s, int c) {
          return k[s * ldT + c] * pair_factor[pair(I, J) * KT + c];
        });
      for_each_accumulator(acc, 2, I * kSubChunk, n0, [&](int i, int c, float& a) {
        intra_q[i * ldT + c] += exp_flushed(dec.seen(i, c)) * a;
      });
    } else {
      const int J = side_job - subs;
      for (int I = J; I < subs; ++I)
        mma_k16<Op, 2, Exact::both>(
            acc, 2, J * kSubChunk, n0, I * kSubChunk, [&](int s, int i) { return masked(i, s); },
            [&](int i, int c) { return q[i * ldT + c] * pair_factor[pair(I, J) * KT + c]; });
      for_each_accumulator(acc, 2, J * kSubChunk, n0, [&](int s, int c, float& a) {
        intra_k[s * ldT + c] += exp_flushed(dec.total[J * KT + c] - dec.local[s * KT + c]) * a;
      });
    }
  }
  __syncthreads();

  // dq, dk; then, per channel, q . dq and k . dk of the decayed terms and k . (the handed-on term) for dg.
  for (int idx = threadIdx.x; idx < C * KT; idx += kThreads) {
    const int t = idx / KT, c = idx % KT, channel = c0 + c;
    float qdq = 0, kdk = 0, handed = 0;
    if (t < length && channel < K) {
      const std::int64_t r = element(t, c);
      const float q_raw = to_float(p.q[r]), k_raw = to_float(p.k[r]);
      const float decayed_q =
          d.scale * (exp_flushed(dec.seen_from_start(t, c)) * from_state[t * ldT + c] + intra_q[t * ldT + c]);
      const float handed_k = exp_flushed(dec.after(t, subs, c)) * to_state[t * ldT + c];
      // the undecayed pair's terms (over scale), from the raw rows (exact products: kept apart from dg's
      // sums)
      float plain_q, plain_k;
      if constexpr (exclusive) {
        plain_q = t > 0 ? __fmul_rn(to_float(p.k[element(t - 1, c)]), dA[t * ldC + t - 1]) : 0.f;
        plain_k = t + 1 < length ? __fmul_rn(to_float(p.q[element(t + 1, c)]), dA[(t + 1) * ldC + t]) : 0.f;
      } else {
        plain_q = __fmul_rn(k_raw, dA[t * ldC + t]);
        plain_k = __fmul_rn(q_raw, dA[t * ldC + t]);
      }
      float gq = decayed_q + d.scale * plain_q;
      float gk = d.scale * (intra_k[t * ldT + c] + plain_k) + handed_k;
      if constexpr (Form::value.bonus) {  // terms no decay touches
        const float u = to_float(p.u[h * K + channel]), weight = d.scale * vdo_diagonal[t];
        gq += weight * u * k_raw;
        gk += weight * u * q_raw;
      }
      if (g.dq) g.dq[r] = from_float<T>(gq);  // null: gsa's passes, which discard it
      g.dk[r] = from_float<T>(g.add_dk_dg ? gk + to_float(g.dk[r]) : gk);
      qdq = q_raw * decayed_q, kdk = k_raw * d.scale * intra_k[t * ldT + c], handed = k_raw * handed_k;
      if constexpr (Form::value.bonus) q[t * ldT + c] = d.scale * vdo_diagonal[t] * q_raw * k_raw;
    } else if constexpr (Form::value.bonus) {
      q[t * ldT + c] = 0;
    }
    from_state[t * ldT + c] = qdq, intra_k[t * ldT + c] = kdk, to_state[t * ldT + c] = handed;
  }
  __syncthreads();

  // dg_t = (q.dq of the outputs from t on, or after t when the output reads the state before the update)
  // - (k.dk of the keys from t on) + e^{whole} S0 . dS + (k . handed-on of the keys before t): no O(1) terms
  // cancel (the undecayed ones were kept apart), so log decays of -40 keep dg's relative accuracy. The
  // chunk's tokens in kPieces pieces at once: each piece's sums first, then every piece walks its tokens
  // from the sums of the pieces before it (the handed-on terms) and after it (the others).
  constexpr int kPieces = kThreads / KT;
  float* dg = intra_q;  // sums: the pieces' handed-on, output, key and bonus-gradient sums
  {
    const int c = threadIdx.x % KT, piece = threadIdx.x / KT, per_piece = C / kPieces,
              first = piece * per_piece, last = first + per_piece;
    const auto sum_at = [&](int kind, int of) -> float& { return sums[(kind * kPieces + of) * KT + c]; };
    {
      float handed = 0, outputs = 0, keys = 0, du = 0;
      for (int t = first; t < last; ++t) {
        handed += to_state[t * ldT + c], outputs += from_state[t * ldT + c], keys += intra_k[t * ldT + c];
        if constexpr (Form::value.bonus) du += q[t * ldT + c];
      }
      sum_at(0, piece) = handed, sum_at(1, piece) = outputs, sum_at(2, piece) = keys, sum_at(3, piece) = du;
    }
    __syncthreads();
    float running = exp_flushed(dec.whole(c)) * before[c], outputs = 0, keys = 0;
    for (int other = 0; other < kPieces; ++other) {
      if (other < piece) running += sum_at(0, other);
      if (other > piece) outputs += sum_at(1, other), keys += sum_at(2, other);
    }
    for (int t = first; t < last; ++t) {
      const float next = running + to_state[t * ldT + c];
      dg[t * ldT + c] = running;
      running = next;
    }
    for (int t = last - 1; t >= first; --t) {
      const float own = from_state[t * ldT + c];
      if (!exclusive) outputs += own;
      keys += intra_k[t * ldT + c];
      dg[t * ldT + c] += outputs - keys;
      if (exclusive) outputs += own;
    }
    if constexpr (Form::value.bonus)
      if (piece == 0 && c0 + c < K) {
        float du = 0;
        for (int other = 0; other < kPieces; ++other) du += sum_at(3, other);
        // laid out [B, chunks, H, K]: sum_parts adds over (batch, chunk) as over a batch
        ws.du_partial[((std::int64_t(b) * d.chunks() + n) * d.H + h) * K + c0 + c] = du;
      }
  }
  __syncthreads();
  if constexpr (Form::value.gate == GateKind::per_key) {
    for (int idx = threadIdx.x; idx < C * KT; idx += kThreads) {
      const int t = idx / KT, c = idx % KT;
      if (t < length && c0 + c < K) {
        T& to = g.dg[element(t, c)];
        to = from_float<T>(g.add_dk_dg ? dg[t * ldT + c] + to_float(to) : dg[t * ldT + c]);
      }
    }
  } else {  // one gate per head: this tile's share, added over the tiles by chunk_sum_key_tiles_kernel
    for (int t = threadIdx.x; t < C; t += kThreads) {
      float sum = 0;
      for (int c = 0; c < KT; ++c) sum += dg[t * ldT + c];
      ws.dg_partial[(chunk * C + t) * gridDim.z + blockIdx.z] = sum;
    }
  }
}

// simple_gla's dg_t: its key tiles' shares added in a fixed order.
template <class T>
__global__ void chunk_sum_key_tiles_kernel(const float* partial, T* dg, Dims d, int tiles) {
  const std::int64_t row = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;  // (b * T + t) * H + h
  if (row >= std::int64_t(d.B) * d.T * d.H) return;
  const int h = int(row % d.H), t = int((row / d.H) % d.T), b = int(row / (std::int64_t(d.H) * d.T));
  const std::int64_t chunk = (std::int64_t(b) * d.H + h) * d.chunks() + t / d.C;
  float sum = 0;
  for (int tile = 0; tile < tiles; ++tile) sum += partial[(chunk * d.C + t % d.C) * tiles + tile];
  dg[row] = from_float<T>(sum);
}

}  // namespace flabench::chunk
