// The chunk variant's forward: the state pass (kernels/common/chunk/scan.cuh: the states before every
// chunk), then the output pass, the products on the tensor cores (fp32 inputs in 3xTF32,
// kernels/common/chunk/warp_mma.cuh).
//   output pass  one block per (batch, query head, chunk, 64 or 128 values), all key channels at once or a
//                tile at a time:
//                o = scale ((q e^{seen from the chunk's start}) S0 + A v + bonus), with A the intra-chunk
//                scores of intra_chunk.cuh; S0 and A are fp32 and go to the tensor cores in two 16-bit parts
//                (S0 staged as two bf16 planes whatever the 16-bit input, A split as its fragments are
//                built). A forward that saves for a backward keeps A (and rwkv6's bonus), 4 C^2 bytes a
//                chunk, for the backward's value gradients, which would otherwise build it again.
//                Where given, row_scales multiply o's rows (gsa's dq pass, whose queries come balanced by
//                a power of two per row, in fp32 for fp16 inputs: kernels/gsa/chunk_backward.cuh).
#pragma once

#include <type_traits>

#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/output_products.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/recurrence.h"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

// A block's values (VT): 64, or 128 where it fits, so that A is built once for V = 128 rather than twice;
// its key channels a tile at a time where output_key_tile (block_shapes.h) says.
__host__ __device__ inline int output_pass_floats(int C, int K, int VT, int input_bytes) {
  const int KT = output_key_tile(C, K);
  return Decays::floats(C, KT) + 2 * C * (KT + kPad) + input_rows_floats(C, VT, input_bytes) + KT * (VT + 8) +
         C * (C + kPad) + C + intra_chunk_scratch_ints(C, KT);
}

// Two blocks of 512 threads an SM: 64 registers, the whole-K kernel's own count before the bound. With key
// tiles o's accumulators and the loop's values then spill around each tile's scores (bf16: 120-136 bytes a
// thread, ptxas), a few dozen accesses a tile.
// The queries are read from `query_rows` (Q: T, or fp32 for gsa's fp16 dq pass), not p.q.
template <class Form, class T, bool kKeyTiles, class Q>
__global__ void __launch_bounds__(kOutputMaxThreads, 2)
    chunk_output_kernel(Pointers<T> p, const Q* query_rows, Dims d, const float* states, int VT,
                        float* saved_scores, float* saved_bonus, const float* row_scales) {
  extern __shared__ float smem[];
  const int K = d.K, V = d.V, C = d.C, KT = kKeyTiles ? output_key_tile(C, K) : K, ldK = KT + kPad,
            ldC = C + kPad, ldV = VT + kPad;
  // blockIdx.x: (batch, query head); G query heads share a key/value head's k, v, g and states.
  const Dims dq = d.queries();
  const int b = blockIdx.x / dq.H, hq = blockIdx.x % dq.H, h = hq / d.G, bh = b * d.H + h, n = blockIdx.y,
            j0 = blockIdx.z * VT;
  const int t0 = n * C, length = min(C, d.T - t0);
  Decays dec = Decays::carve(smem, C, KT);  // of the KT channels staged
  float* q = smem + Decays::floats(C, KT);  // [C][KT + pad]: q, then q e^{seen}, then e^{seen from the start}
  float* k = q + C * ldK;  // [C][KT + pad]: k, then k e^{decay after it to its sub-chunk's end}
  // v as the input is and S0 (the state before the chunk; its KT rows of the tile) as two bf16 planes
  // (bf16/fp16: B fragments by ldmatrix, rows of an odd number of 16-byte vectors so its 8 rows fall on
  // distinct banks), or both fp32
  using Staged = std::conditional_t<sizeof(T) == 2, T, float>;
  using Planes = StatePart<T>;
  constexpr bool kFragments = sizeof(T) == 2;
  const int ldS = kFragments ? VT + 8 : ldV;
  Staged* v = reinterpret_cast<Staged*>(k + C * ldK);
  float* S0 = k + C * ldK + input_rows_floats(C, VT, sizeof(T));  // in [KT][VT + 8] fp32's room
  float* A = S0 + KT * (VT + 8);                                  // [C][C + pad]
  float* bonus = A + C * ldC;                                     // [C]: rwkv6's q_i . (u k_i)
  int* scratch = reinterpret_cast<int*>(bonus + C);               // intra_chunk_scores'
  const float* saved = states + (std::int64_t(bh) * d.chunks() + n) * K * V;
  const Divisor channels(KT);

  // o: each warp a 16-row strip of C / 16 8-column tiles (output_threads).
  constexpr int kMaxTiles = kMaxStripTiles;
  const int warp = threadIdx.x / 32, strips = C / kSubChunk, tiles = strips, m0 = (warp % strips) * kSubChunk,
            n0 = (warp / strips) * 8 * tiles;
  // fn(the warp's tile count, C / 16): for fp32 inputs as a constant, so the products' loops over tiles hold
  // no test, branch and WARPSYNC per tile (kernels/notes/chunk.md, version 60's reading); 0.91-0.97x of
  // fp32's forwards, while 16-bit ones ran 1.01-1.02x slower with it (version 61) and keep the run-time
  // count. Key tiles come with 64-token chunks only (output_key_tile).
  const auto with_tiles = [&](auto&& fn) {
    if constexpr (sizeof(T) == 2)
      fn(tiles);
    else if constexpr (kKeyTiles)
      fn(std::integral_constant<int, kMaxChunk / kSubChunk>{});
    else
      with_one_of<kSubChunk, 2 * kSubChunk, kMaxChunk>(
          C, [&](auto chunk) { fn(std::integral_constant<int, chunk.value / kSubChunk>{}); });
  };
  // acc += (q e^{seen from the start}) S0 over the KT channels staged (q e^{seen} on entry)
  const auto add_state_product = [&](float(&acc)[kMaxTiles][4]) {
    with_tiles([&](auto count) {
      add_output_state_product<T>(acc, tile_count(count), m0, n0, dec, q, ldK, KT, C, channels, S0, ldS);
    });
  };
  const auto stage = [&](int c0, const auto&... more) {
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0,
                            token_rows(query_rows, dq, b, hq, t0, C, K, c0, KT, q, ldK),
                            token_rows(p.k, d, b, h, t0, C, K, c0, KT, k, ldK),
                            staged_state<Planes>(saved, d, c0, KT, j0, VT, S0, ldS), more...);
  };
  // acc += A v, then o's stores; A (and the bonus) to saved_scores for the backward where it asks
  const auto add_scores_product_and_store = [&](float(&acc)[kMaxTiles][4]) {
    __syncthreads();
    if (saved_scores && blockIdx.z == 0) {
      const std::int64_t chunk = std::int64_t(blockIdx.x) * d.chunks() + n;
      store_intra_chunk_scores<Form>(A, ldC, C, bonus, saved_scores + chunk * C * C, saved_bonus + chunk * C);
    }
    with_tiles(
        [&](auto count) { add_output_scores_product<T>(acc, tile_count(count), m0, n0, A, ldC, C, v, ldS); });
    for_each_pair(acc, tiles, m0, n0, [&](int i, int j, float& first, float& second) {
      if (i >= length || j0 + j >= V) return;
      if constexpr (Form::value.bonus) {
        first += bonus[i] * to_float(v[i * ldS + j]);
        second += bonus[i] * to_float(v[i * ldS + j + 1]);
      }
      const std::int64_t row = dq.row(b, hq, t0 + i);
      const float factor = row_scales ? d.scale * row_scales[row] : d.scale;
      store_pair(p.o + row * V + j0 + j, factor * first, factor * second);
    });
  };
  const T* u = Form::value.bonus ? p.u + h * K : nullptr;
  if constexpr (kKeyTiles) {
    float acc[kMaxTiles][4] = {};
    zero_intra_chunk_scores(A, ldC, C, bonus);
    for (int c0 = 0; c0 < K; c0 += KT) {
      __syncthreads();  // the last tile's reads are done
      // (staged here rather than by `stage`: through it this instance spilled twice the bytes; version 37b)
      const auto q_rows = token_rows(query_rows, dq, b, hq, t0, C, K, c0, KT, q, ldK);
      const auto k_rows = token_rows(p.k, d, b, h, t0, C, K, c0, KT, k, ldK);
      const auto S0_rows = staged_state<Planes>(saved, d, c0, KT, j0, VT, S0, ldS);
      if (c0 == 0)
        stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, q_rows, k_rows, S0_rows,
                                token_rows(p.v, d, b, h, t0, C, V, j0, VT, v, ldS));
      else
        stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, q_rows, k_rows, S0_rows);
      intra_chunk_scores<Form, T, true>(dec, q, k, ldK, KT, C, A, ldC, u ? u + c0 : nullptr, bonus, scratch);
      add_state_product(acc);
    }
    finish_intra_chunk_scores<Form>(A, ldC, C);
    add_scores_product_and_store(acc);
  } else {
    stage(0, token_rows(p.v, d, b, h, t0, C, V, j0, VT, v, ldS));
    intra_chunk_scores<Form, T>(dec, q, k, ldK, K, C, A, ldC, u, bonus, scratch);
    float acc[kMaxTiles][4] = {};
    add_state_product(acc);
    add_scores_product_and_store(acc);
  }
}

}  // namespace flabench::chunk
