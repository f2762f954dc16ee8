// gsa chunk's pass 1 and the softmax between its passes, one block per (batch, query head, chunk). Both
// kernels are built from one product over the chunk, for x_i (a query-side row), y_j (a key-side row) and
// the state S0 before the chunk:
//   slot_product_i = e^{F_i} S0 x_i + sum_{j <= i} (x_i . y_j) s_j e^{F_i - F_j}          (one value per
//   slot)
// with F the slots' log decays summed from the chunk's start (inclusive).
//   logits       z_i = scale slot_product(q, k, Hk0^T) and p = softmax(z), into the workspace in the inputs'
//                dtype (pass 2's queries)
//   logit grads  dp_i = slot_product(do, v, Hv0) (o's gradient through p), then dz_i = scale p_i (dp_i - p_i
//   .
//                dp_i), pass 1's output gradient (kernels/gsa/chunk.cu turns it into pass 1's gradients)
// GLA's scores carry the decay inside their product over key channels; here it sits on the product's output
// (the slots), so A = x y^T is a plain causal product and the decays multiply after it, per slot, each
// exponent composed from Decays' sub-chunk sums and never positive (i in sub-chunk I):
//   the state's part        e^{prefix_I} S0 x_i                            then all three
//   earlier sub-chunks      sum_j A_ij s_j e^{decay after j to I's start}  times e^{local_i}
//   i's own sub-chunk       sum_{j <= i} A_ij s_j e^{-local_j}             times e^{local_i}
// the last for the slots whose decay over the sub-chunk stays within e^40 (chunk::kFactorLimit, as GLA's
// diagonal blocks); a steeper slot's sum_{j <= i} A_ij s_j e^{local_i - local_j} is summed element by
// element. So log decays down to -40 make terms vanish, never overflow (the NaN of FLA's chunk_gsa
// backward, kernels/notes/gsa.md). The products run on the tensor cores (fp32 inputs in 3xTF32): A from the
// inputs as they are; the fp32 state, A and the scaled s in two bf16 parts each (Exact), since an error in
// the logits passes through the softmax's exp, and bf16 for fp16 inputs too (e^{-local} needs its range).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/fast_exp.cuh"
#include "kernels/common/lane_sum.cuh"
#include "kernels/gla/gla.h"
#include "kernels/gsa/logit_grads_plan.h"
#include "kernels/gsa/softmax_rows.cuh"

namespace flabench::gsa {

constexpr int kLogitsMaxSlots = 128;

// Calls fn(std::integral_constant<int, NT>) with the kernels' tile count (logit_kernel_tiles).
template <class Fn>
void with_logit_tiles(int C, int M, Fn&& fn) {
  with_one_of<kExactLogitTiles, 4, 8>(logit_kernel_tiles(C, M), fn);
}

// Shared memory, in floats: the slots' decays; s [C][M + pad]; A [C][C + pad]; the product's x and y as the
// inputs are, [C][W + 8] (16-bit) or [C][W + pad] (fp32), and S0 in fp32 [M][W + pad] (W the rows' width),
// x and y's room taken by a [C][M] fp32 result once A is built; for the logit grads, S0's room taken by p
// [C][M] once the state's product has read it, then, for fp16's row balance, the chunk's queries in fp16
// [C][Kq + 8] (Kq = query_width, 0 otherwise), the room grown where they are the larger.
__host__ __device__ inline int row_room_floats(int C, int W, int M, int input_bytes) {
  const int ld = input_bytes == 2 ? W + 8 : W + chunk::kPad, rows = 2 * C * ld * input_bytes / 4;
  return rows > C * M ? rows : C * M;
}
__host__ __device__ inline int balanced_query_ld(int query_width) {
  return query_width + 8;
}
__host__ __device__ inline int logits_floats(int C, int W, int M, bool grads, int input_bytes,
                                             int query_width) {
  const int state = M * (W + chunk::kPad);
  const int after_product = C * M + (query_width > 0 ? C * balanced_query_ld(query_width) / 2 : 0);
  return chunk::Decays::floats(C, M) + C * (M + chunk::kPad) + C * (C + chunk::kPad) +
         row_room_floats(C, W, M, input_bytes) + (grads && after_product > state ? after_product : state);
}

// The product's rows: x = q, y = k, S0 = Hk^T for the logits; x = do, y = v, S0 = Hv for the logit grads.
template <class T>
struct LogitsArgs {
  const T *x, *y, *s, *f;
  const float* states;   // [B*H, chunks, M, width]: S0 before every chunk
  int width;             // of x, y and S0's rows: K or V
  const float* weights;  // logit grads: p [B, T, HQ, M] in fp32, as the forward saved it
  T* out;                // [B, T, HQ, M]: p (logits), or dz (logit grads; fp16: balanced, below)
  float* saved_weights;  // logits: p in fp32 for the backward, or null
  chunk::Dims d;         // over the slots (d.K = M), with the query groups d.G and the logits' scale
  // logit grads with fp16 inputs (else unused): q [B, T, HQ, K] in; out the balanced pair pass 1 reads,
  // the balanced dz in fp32 [B, T, HQ, M] and each row's factor back [B, T, HQ] (balance_row)
  const T* queries;
  int query_width;
  T* balanced_queries;
  float* grads_fp32;  // also bf16's dz in fp32 (pass 1's reverse scan reads it: version 44)
  float* row_scales;
};

// One block's staging room and place, shared by both kernels.
template <class T>
struct SlotBlock {
  chunk::Decays dec;
  float *s, *A, *room, *S0;  // room: x and y's, then the product's result
  T *x, *y;
  int M, C, ldM, ldC, ldX, ldS;
  int b, hq, h, n, t0, length;
};

template <class T>
__device__ SlotBlock<T> slot_block(float* smem, const LogitsArgs<T>& args) {
  using namespace chunk;
  const chunk::Dims& d = args.d;
  const int M = d.K, C = d.C, W = args.width, HQ = d.H * d.G;
  SlotBlock<T> sb{Decays::carve(smem, C, M)};
  sb.M = M, sb.C = C, sb.ldM = M + kPad, sb.ldC = C + kPad;
  sb.ldX = sizeof(T) == 2 ? W + 8 : W + kPad, sb.ldS = W + kPad;
  sb.s = smem + Decays::floats(C, M);
  sb.A = sb.s + C * sb.ldM;
  sb.room = sb.A + C * sb.ldC;
  sb.x = reinterpret_cast<T*>(sb.room);
  sb.y = sb.x + C * sb.ldX;
  sb.S0 = sb.room + row_room_floats(C, W, M, sizeof(T));
  sb.b = blockIdx.x / HQ, sb.hq = blockIdx.x % HQ, sb.h = sb.hq / d.G, sb.n = blockIdx.y, sb.t0 = sb.n * C,
  sb.length = min(C, d.T - sb.t0);
  return sb;
}

// out[i * M + m] = scale slot_product_i,m for the chunk's rows staged in sb (x, y [C][width], S0 [M][width],
// s, decays). The whole block calls it; it synchronises after building A (x, y and S0 are free once it
// returns to a barrier, so `out` may be x and y's room), not at its end, and calls inputs_read() right
// after that barrier (the room of x, y and S0 is free from there).
template <class T, int NT, class InputsRead>
__device__ void slot_product(const SlotBlock<T>& sb, int width, float scale, float* out,
                             const InputsRead& inputs_read) {
  using namespace chunk;
  const int M = sb.M, ldX = sb.ldX, ldS = sb.ldS, ldM = sb.ldM, ldC = sb.ldC;
  const T *x = sb.x, *y = sb.y;
  const float *S0 = sb.S0, *s = sb.s;
  float* A = sb.A;
  const Decays& dec = sb.dec;
  // A = x y^T on and below the diagonal, a warp per 16 x 16 block.
  const int warp = threadIdx.x / 32, warps = kLogitsThreads / 32, subs = sb.C / kSubChunk;
  for (int job = warp; job < subs * (subs + 1) / 2; job += warps) {
    int I, J;
    chunk::lower_pair(job, I, J);
    float acc[2][4] = {};
    for (int k0 = 0; k0 < width; k0 += 16)
      mma_k16<T>(
          acc, 2, I * kSubChunk, 0, k0, [&](int i, int c) { return to_float(x[i * ldX + c]); },
          [&](int c, int j) { return to_float(y[(J * kSubChunk + j) * ldX + c]); });
    for_each_accumulator(acc, 2, I * kSubChunk, 0, [&](int i, int j, float& a) {
      const int key = J * kSubChunk + j;
      A[i * ldC + key] = key <= i ? a : 0.f;
    });
  }

  // Each warp's share: sub-chunk I's 16 rows, `count` tiles of 8 slots from n0; a constant where the host
  // picked the instance whose every warp holds exactly NT (logit_kernel_tiles).
  const int groups = logit_groups(sb.C), I = warp % subs, group = warp / subs, m0 = I * kSubChunk;
  const int per_group = chunk::strip_run(M, groups), n0 = group * per_group * 8,
            count = NT == kExactLogitTiles ? NT : min(per_group, M / 8 - group * per_group);
  using Op = std::conditional_t<std::is_same_v<T, float>, float, __nv_bfloat16>;
  constexpr Exact kRows = std::is_same_v<T, __half> ? Exact::both : Exact::b;  // fp16's rows in bf16 parts
  float acc[NT][4] = {};
  if (count > 0) {
    for (int k0 = 0; k0 < width; k0 += 16)
      mma_k16<Op, NT, kRows>(
          acc, count, m0, n0, k0, [&](int i, int c) { return to_float(x[i * ldX + c]); },
          [&](int c, int m) { return S0[m * ldS + c]; });
    for_each_accumulator(acc, count, m0, n0,
                         [&](int, int m, float& a) { a *= exp_flushed(dec.prefix[I * M + m]); });
  }
  __syncthreads();  // A is built; x, y and S0 are read for the last time
  inputs_read();
  const auto gentle = [&](int m) { return gentle_channel(dec, I, m); };  // dec's channels are the M slots
  if (count > 0) {
    for (int J = 0; J <= I; ++J)
      mma_k16<Op, NT, Exact::both>(
          acc, count, m0, n0, J * kSubChunk, [&](int i, int j) { return A[i * ldC + j]; },
          [&](int j, int m) {
            if (J < I) return s[j * ldM + m] * exp_flushed(dec.after(j, I, m));
            return gentle(m) ? s[j * ldM + m] * exp_flushed(-dec.local[j * M + m]) : 0.f;
          });
    for_each_accumulator(acc, count, m0, n0, [&](int i, int m, float& a) {
      const float seen = dec.local[i * M + m];
      float steep = 0;
      if (!gentle(m))
        for (int j = m0; j <= i; ++j)
          steep += A[i * ldC + j] * s[j * ldM + m] * exp_flushed(seen - dec.local[j * M + m]);
      out[i * M + m] = scale * (a * exp_flushed(seen) + steep);
    });
  }
}

// Stages the chunk's x (HQ heads), y, S0 and s rows and the decays of f (then summed), with any other tiles.
template <class T, class... Tiles>
__device__ void stage_product(SlotBlock<T>& sb, const LogitsArgs<T>& args, const Tiles&... others) {
  using namespace chunk;
  const chunk::Dims& d = args.d;
  const int b = sb.b, h = sb.h, t0 = sb.t0, C = sb.C, M = sb.M, width = args.width;
  const float* saved = args.states + ((std::int64_t(b) * d.H + h) * d.chunks() + sb.n) * M * width;
  // f is a per-slot gate seen after the update, as GLA's per-key gate: its decays are GLA's
  stage_with_decays<GlaForm>(sb.dec, args.f, d, b, h, t0, 0,
                             token_rows(args.x, d.queries(), b, sb.hq, t0, C, width, 0, width, sb.x, sb.ldX),
                             token_rows(args.y, d, b, h, t0, C, width, 0, width, sb.y, sb.ldX),
                             rows_of(saved, M, width, sb.S0, sb.ldS),
                             token_rows(args.s, d, b, h, t0, C, M, 0, M, sb.s, sb.ldM), others...);
}

template <class T, int NT>
__global__ void __launch_bounds__(kLogitsThreads, NT <= 4 ? 3 : 2) chunk_logits_kernel(LogitsArgs<T> args) {
  extern __shared__ float smem[];
  SlotBlock<T> sb = slot_block(smem, args);
  stage_product(sb, args);
  float* z = sb.room;  // [C][M]
  slot_product<T, NT>(sb, args.width, args.d.scale, z, [] {});
  __syncthreads();
  const int warp = threadIdx.x / 32;
  softmax_rows(z, sb.length, sb.M, warp, kLogitsThreads / 32);
  __syncthreads();
  const int M = sb.M, HQ = args.d.H * args.d.G;
  const std::int64_t first = args.d.queries().row(sb.b, sb.hq, sb.t0) * M;
  for (int idx = threadIdx.x; idx < sb.length * M; idx += kLogitsThreads) {
    const std::int64_t at = first + std::int64_t(idx / M) * HQ * M + idx % M;
    args.out[at] = from_float<T>(z[idx]);
    if (args.saved_weights) args.saved_weights[at] = z[idx];
  }
}

// fp16's logit gradient: dz is a fraction of do's size (p sums to 1 over the slots), so a small loss puts it
// among fp16's subnormals (the battery's small_loss case). Pass 1's gradients are sums of products
// dz_i q_i of one token's row each, so a row's power of two 2^e may move between them: pass 1 reads
// dz_i 2^e and q_i 2^-e in fp16, e chosen to give both the same largest magnitude (the geometric mean of
// theirs), which keeps them normal down to gradients of 2^-28. dq (dq_i = Hk_i dz_i, dz_i alone, made in
// pass 1's value gradients or a pass of its own: chunk_backward.cuh) reads the balanced dz in fp32 (fp16's 11
// bits of it cost dq 5x its error where a large Hk's columns cancel: gsa.md, version 36) and multiplies its
// row of dq by 2^-e (row_scales) before rounding it to fp16.
// A warp per row; `dz(m)` is slot m's value, q the row's queries as the kernel staged them in shared memory
// (read from global memory after the products, they were a fifth of the kernel's waits: version 57).
template <class Dz>
__device__ void balance_row(const LogitsArgs<__half>& args, std::int64_t row, const __half* q, int M,
                            const Dz& dz) {
  const int lane = threadIdx.x % 32, K = args.query_width;
  float dz_largest = 0, q_largest = 0;
  for (int m = lane; m < M; m += 32) dz_largest = fmaxf(dz_largest, fabsf(dz(m)));
  for (int c = 2 * lane; c < K; c += 64) {
    const float2 pair = __half22float2(*reinterpret_cast<const __half2*>(q + c));
    q_largest = fmaxf(q_largest, fmaxf(fabsf(pair.x), fabsf(pair.y)));
  }
  dz_largest = largest_over_lanes(dz_largest), q_largest = largest_over_lanes(q_largest);
  const int e = dz_largest > 0 && q_largest > 0 ? (ilogbf(q_largest) - ilogbf(dz_largest)) / 2 : 0;
  // |e| <= 82 (q is fp16: ilogb in [-24, 15]; dz fp32: [-149, 127]), so 2^e and 2^-e are normal floats and
  // x 2^e, one rounding, is ldexpf(x, e) bit for bit, at two instructions where ldexpf takes about fourteen
  // (its range checks), four times a row and lane (version 54)
  const float up = __int_as_float((127 + e) << 23), down = __int_as_float((127 - e) << 23);
  for (int m = lane; m < M; m += 32) {
    const float balanced = dz(m) * up;
    args.grads_fp32[row * M + m] = balanced;
    args.out[row * M + m] = from_float<__half>(balanced);
  }
  if (lane == 0) args.row_scales[row] = down;
  for (int c = 2 * lane; c < K; c += 64) {
    const float2 pair = __half22float2(*reinterpret_cast<const __half2*>(q + c));
    *reinterpret_cast<__half2*>(args.balanced_queries + row * K + c) =
        __floats2half2_rn(pair.x * down, pair.y * down);
  }
}

// Built for kBlocks blocks an SM (logit_grads_blocks). p (and fp16's queries) are not staged with the inputs
// but by cp.async into S0's room once the state's product has read it, beside the scores' product: the 8 KiB
// p took apart let four blocks of chunks of 32 at M = K = V = 64 share a Hopper SM (kernels/notes/gsa.md,
// version 55).
template <class T, int NT, int kBlocks>
__global__ void __launch_bounds__(kLogitsThreads, kBlocks) chunk_logit_grads_kernel(LogitsArgs<T> args) {
  extern __shared__ float smem[];
  SlotBlock<T> sb = slot_block(smem, args);
  const int M = sb.M, warp = threadIdx.x / 32, warps = kLogitsThreads / 32;
  const int lane = threadIdx.x % 32, HQ = args.d.H * args.d.G;
  const std::int64_t first_row = args.d.queries().row(sb.b, sb.hq, sb.t0);
  float* dp = sb.room;  // [C][M]
  float* p = sb.S0;     // [C][M], once the state's product has read S0
  // fp16's row balance reads the chunk's queries [C][ldQ] after p
  const int Kq = args.query_width, ldQ = balanced_query_ld(Kq);
  __half* queries = reinterpret_cast<__half*>(p + sb.C * M);
  stage_product(sb, args);
  // p's rows (and fp16's queries) by cp.async into S0's room, in flight beside the scores' product
  slot_product<T, NT>(sb, args.width, 1.f, dp, [&] {
    const int per_row = M / 4;  // 16-byte vectors
    for (int idx = threadIdx.x; idx < sb.length * per_row; idx += kLogitsThreads) {
      const int i = idx / per_row, at = 4 * (idx % per_row);
      cp_async(p + i * M + at, args.weights + (first_row + std::int64_t(i) * HQ) * M + at, 16);
    }
    if constexpr (std::is_same_v<T, __half>) {
      const int q_per_row = Kq / 8;
      for (int idx = threadIdx.x; idx < sb.length * q_per_row; idx += kLogitsThreads) {
        const int i = idx / q_per_row, at = 8 * (idx % q_per_row);
        cp_async(queries + i * ldQ + at, args.queries + (first_row + std::int64_t(i) * HQ) * Kq + at, 16);
      }
    }
    cp_async_commit();
  });
  cp_async_wait<0>();
  __syncthreads();
  // dz = scale p (dp - p . dp): a warp per row.
  for (int i = warp; i < sb.length; i += warps) {
    float weighted = 0;
    for (int m = lane; m < M; m += 32) weighted += p[i * M + m] * dp[i * M + m];
    weighted = sum_over_lanes(weighted, 32);
    const std::int64_t row = first_row + std::int64_t(i) * HQ;
    const auto dz = [&](int m) { return args.d.scale * p[i * M + m] * (dp[i * M + m] - weighted); };
    if constexpr (std::is_same_v<T, __half>) {
      balance_row(args, row, queries + i * ldQ, M, dz);
    } else {
      for (int m = lane; m < M; m += 32) {
        args.out[row * M + m] = from_float<T>(dz(m));
        if constexpr (sizeof(T) == 2) args.grads_fp32[row * M + m] = dz(m);  // pass 1's scan operand's
      }
    }
  }
}

}  // namespace flabench::gsa
