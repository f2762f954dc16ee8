// rwkv7 chunk backward's local gradients for 16-bit inputs: chunk_backward_local.cuh's steps in its order,
// every product on the tensor cores with its operands as bf16 planes read whole by ldmatrix
// (chunk_products.cuh's plane_product): each fp32 operand is split into its high and low parts once, where
// it is staged or where the product that makes it emits it, instead of by every warp that reads it (v30;
// before, operand fragments were built element by element from fp32 shared memory and A_qk, A_ak read from
// global memory inside the products). The sums are the same products in the same order as before, so the
// results are bit-for-bit v29's: a part a 16-bit input does not have (bf16's low one) adds exact zeros there.
// The gradients of A_qk, A_qb and A_ak build up over the value slices in the workspace's planes (where the
// per-channel kernel reads them) rather than in shared memory, which the operands' padded planes fill.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/rwkv7/chunk_backward_local.cuh"

namespace flabench::rwkv7 {

// Eight neighbouring elements of a 16-bit input (`raw`, as loaded) at `high`: bf16's as they are (one plane),
// fp16's in two bf16 parts (`plane` elements apart).
template <class T>
__device__ __forceinline__ void store_input_octet(__nv_bfloat16* high, int plane, uint4 raw) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    *reinterpret_cast<uint4*>(high) = raw;
  } else {
    const __half2* x = reinterpret_cast<const __half2*>(&raw);
    const float2 x0 = __half22float2(x[0]), x1 = __half22float2(x[1]), x2 = __half22float2(x[2]),
                 x3 = __half22float2(x[3]);
    store_part_octet(high, plane, make_float4(x0.x, x0.y, x1.x, x1.y), make_float4(x2.x, x2.y, x3.x, x3.y));
  }
}

// kSlice: the value columns staged at a time (kLocalSlice or kWideLocalSlice; a compile-time row length keeps
// the planes' addressing out of the registers). kBlockThreads: kThreads at two blocks an SM, or twice that
// at one where only one block of wide slices fits (v35).
// C: the chunk size at compile time, so that the chunk's index arithmetic (the pair matrices' decode, the
// planes' offsets, the products' tile loops) folds into shifts and constants without holding them in
// registers (v43; shifts held at run time spilled, v36).
// kHold: the sums of dW, dO S^T, v dS^T and V_new dS^T stay in shared memory between the value slices
// (local_held_bytes after the plan's; the host launches it where they fit and V takes two slices or more).
template <class T, int C, int kSlice, int kBlockThreads = kThreads, bool kHold = false>
__global__ void __launch_bounds__(kBlockThreads, 2 * kThreads / kBlockThreads)
    rwkv7_chunk_local_grads_mma_kernel(Pointers<T> p, GradPointers<T> g, ChunkDims d, ChunkRange range,
                                       IntraOutputs in, BackwardRegions regions) {
  using bf16 = __nv_bfloat16;
  static_assert(sizeof(T) == 2, "16-bit inputs (fp32's: chunk_backward_local.cuh)");
  constexpr int kIn = chunk::kStateOperandParts<T>;  // a 16-bit input's planes
  extern __shared__ __align__(16) unsigned char shared[];
  // VS: a slice's columns (the host takes a wide slice only where V is a multiple of it, so that its count
  // is known at compile time there)
  const int K = d.K, V = d.V, VS = kSlice > kLocalSlice ? kSlice : min(kSlice, V);
  const LocalMmaPlan s = local_mma_plan(C, K, kIn, kSlice);
  const auto planes = [&](int offset) { return reinterpret_cast<bf16*>(shared + offset); };
  const auto floats = [&](int offset) { return reinterpret_cast<float*>(shared + offset); };
  const int square = C * s.CR, keys = C * s.KR, slice = C * s.SR, state_slice = K * s.SR;  // plane sizes
  bf16 *xp = planes(s.x), *akp = planes(s.ak), *qkp = planes(s.qk), *ktp = planes(s.kt);
  bf16 *s0p = planes(s.s0), *dsp = planes(s.ds), *dop = planes(s.dout), *vp = planes(s.v);
  bf16 *vnp = planes(s.vn), *dvnp = planes(s.dvn), *dakvp = planes(s.dakv), *akvp = planes(s.akv);
  bf16 *dwp = planes(s.dw), *agp = planes(s.ag), *dxp = planes(s.dxp), *xdxp = planes(s.xdx);
  float *dx = floats(s.dx), *state_dot = floats(s.state_dot);
  // the operands as the products read them: fp32 ones in two parts, inputs in kIn
  const auto fp32_rows = [](const bf16* at, int plane, int ld) { return Planes<2, false>{at, plane, ld}; };
  const auto fp32_depth = [](const bf16* at, int plane, int ld) { return Planes<2, true>{at, plane, ld}; };
  const auto in_rows = [](const bf16* at, int plane, int ld) { return Planes<kIn, false>{at, plane, ld}; };
  const auto in_depth = [](const bf16* at, int plane, int ld) { return Planes<kIn, true>{at, plane, ld}; };
  const auto to_planes = [](bf16* at, int plane, int ld) {
    return [=](int i, int j, float x0, float x1) { store_part_pairs(at + i * ld + j, plane, x0, x1); };
  };
  // what the products emit into: fp32 rows, the lower triangle of a [C][C] matrix (m <= i, or m < i without
  // the diagonal; zeros above), and a start of zeros
  const auto put = [](float* x, int stride) {
    return [=](int i, int j, float x0, float x1) {
      *reinterpret_cast<float2*>(x + i * stride + j) = make_float2(x0, x1);
    };
  };
  const auto lower = [](float* x, bool diagonal) {
    return [=](int i, int m, float x0, float x1) {
      const int last = diagonal ? i : i - 1;
      *reinterpret_cast<float2*>(x + i * C + m) =
          make_float2(m <= last ? x0 : 0.0f, m + 1 <= last ? x1 : 0.0f);
    };
  };
  const auto none = [](int, int) { return 0.0f; };

  const LocalScratch at(C, K);
  const ChannelTerms at_terms(C, K);
  float* scratch = regions.scratch + blockIdx.x * regions.scratch_floats;
  float *dw = scratch + at.dw, *ag = scratch + at.ag;
  // where the slices' sums build up: held (kHold) or where they end
  const int HR = kHold ? local_held_row(K) : K;
  float* held = floats(s.bytes);
  float* const dw_sum = kHold ? held : dw;

  for (int item = blockIdx.x; item < range.count() * d.B * d.H; item += gridDim.x) {
    const auto [n, bh, b, h, t0, L, block] = local_item(d, range, item);
    const std::int64_t first_row = token_row(d, b, t0, h);  // token i's row: first_row + i H
    const float* S0 = regions.states + (std::int64_t(bh) * d.checkpoints + t0 / kCheckpointTokens) * K * V;
    const float* dS = regions.dstates + block * K * V;
    float* terms = regions.terms + block * at_terms.floats;
    float *qs = terms + at_terms.qs, *ks = terms + at_terms.ks, *bs = terms + at_terms.bs;
    float* xdw = terms + at_terms.xdw;
    float *qs_sum = kHold ? held + C * HR : qs, *ks_sum = kHold ? held + 2 * C * HR : ks;
    float* bs_sum = kHold ? held + 3 * C * HR : bs;
    // the pair matrices' gradients (dA_qk, dA_qb, dA_ak, dA_ab [4][C][C]), where the channel kernel reads
    // them
    float* pairs = regions.pairs + block * 4 * C * C;

    // X, A_ak and A_qk as planes, each triangle as the products read it (bf16's A_qk as the forward's planes
    // hold it: the same parts, bit for bit).
    for (int e = threadIdx.x; e < C * C / 2; e += kBlockThreads) {
      const int i = 2 * e / C, j = 2 * e % C;
      const std::int64_t at_block = block * C * C + i * C + j;
      const float2 x = *reinterpret_cast<const float2*>(in.x + at_block);
      const float2 ak = *reinterpret_cast<const float2*>(in.ak + at_block);
      store_part_pairs(xp + i * s.CR + j, square, j <= i ? x.x : 0.0f, j + 1 <= i ? x.y : 0.0f);
      store_part_pairs(akp + i * s.CR + j, square, j < i ? ak.x : 0.0f, j + 1 < i ? ak.y : 0.0f);
      if constexpr (!std::is_same_v<T, bf16>) {
        const float2 qk = *reinterpret_cast<const float2*>(in.qk + at_block);
        store_part_pairs(qkp + i * s.CR + j, square, qk.x, qk.y);
      }
    }
    if constexpr (std::is_same_v<T, bf16>)
      for (int e = threadIdx.x; e < C * C; e += kBlockThreads) {  // a 32-bit pair of a plane each
        const int part = 2 * e / (C * C), i = 2 * e % (C * C) / C, j = 2 * e % C;
        *reinterpret_cast<__nv_bfloat162*>(qkp + part * square + i * s.CR + j) =
            reinterpret_cast<const __nv_bfloat162*>(in.qk + block * C * C)[e];
      }
    decayed_keys<kBlockThreads>(p, C, K, KeyRows{first_row * K, std::int64_t(d.H) * K, L}, floats(s.sums),
                                [&](int i, int c, float a_decayed, float k_decayed) {
                                  ag[i * K + c] = a_decayed;
                                  store_parts(ktp + i * s.KR + c, keys, k_decayed);
                                });
    __syncthreads();  // the value slices take the decays' sums' room

    // The products over the value columns, a slice at a time (the first slice writes, the others add).
    for (int v0 = 0; v0 < V; v0 += VS) {
      const bool first = v0 == 0, last = v0 + VS >= V;
      // the last slice's sums go where they end (dW's stay: the steps after the slices read them)
      const auto sums = [&](float* ends, float* held_sums) {
        return last ? put(ends, K) : put(held_sums, HR);
      };
      const auto prior = [first](const float* x, int stride) {
        return [=](int i, int j) { return first ? 0.0f : x[i * stride + j]; };
      };
      // S and dS in pieces of 16 columns, a thread a piece (S . dS summed along each, then over a row's
      // pieces in neighbouring lanes by shuffles), then dO, v, V_new and dV_new, a thread a row (a
      // kLocalSlice piece of a wide slice's row); past the sequence's end the inputs and V_new read as zeros.
      // A piece's or row's loads are issued together (v31) and its planes stored 16 bytes at a time. (v62: a
      // thread a state row had waited for its pieces' loads one after another, so a 64-column slice's staging
      // took four trips to memory where it now takes two; the kernel 0.88x at K = 128.)
      constexpr int kQuads = kLocalSlice / 4, kOctets = kLocalSlice / 8;
      constexpr int pieces = kSlice / kLocalSlice;                               // of a token row
      constexpr int kStateQuads = 4, kStatePieces = kSlice / (4 * kStateQuads);  // of a state row
      static_assert((kStatePieces & (kStatePieces - 1)) == 0 && kStatePieces <= 32,
                    "a row's pieces in a warp");
      // a whole number of warps, so that a warp's lanes all take state pieces or all token rows (K and V are
      // 16, 32, 64 or 128: chunk.cu's forward_refusal)
      const int state_items = K * kStatePieces;
      for (int item = threadIdx.x; item < state_items + 4 * C * pieces; item += kBlockThreads) {
        if (item < state_items) {
          const int row = item / kStatePieces, at = item % kStatePieces * 4 * kStateQuads;
          float sum = 0;
          if (at < VS) {
            const float *s0 = S0 + row * V + v0 + at, *ds = dS + row * V + v0 + at;
            float4 x[kStateQuads], y[kStateQuads];
#pragma unroll
            for (int q = 0; q < kStateQuads; ++q) {
              x[q] = *reinterpret_cast<const float4*>(s0 + 4 * q);
              y[q] = *reinterpret_cast<const float4*>(ds + 4 * q);
            }
#pragma unroll
            for (int q = 0; q < kStateQuads; ++q) {
              sum = fmaf(x[q].x, y[q].x, sum), sum = fmaf(x[q].y, y[q].y, sum);
              sum = fmaf(x[q].z, y[q].z, sum), sum = fmaf(x[q].w, y[q].w, sum);
            }
#pragma unroll
            for (int q = 0; q < kStateQuads; q += 2) {
              store_part_octet(s0p + row * s.SR + at + 4 * q, state_slice, x[q], x[q + 1]);
              store_part_octet(dsp + row * s.SR + at + 4 * q, state_slice, y[q], y[q + 1]);
            }
          }
#pragma unroll
          for (int d = 1; d < kStatePieces; d *= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, d, kStatePieces);
          if (at == 0) state_dot[row] = first ? sum : state_dot[row] + sum;
        } else {
          const int row = item - state_items;
          const int piece = row % pieces * kLocalSlice, width = VS - piece;  // width: up to kLocalSlice
          const int kind = row / pieces / C, i = row / pieces % C;
          const std::int64_t token = first_row + std::int64_t(i) * d.H;
          if (kind < 2) {  // dO, v
            const T* from = (kind == 0 ? g.d_o : p.v) + token * V + v0 + piece;
            bf16* to = (kind == 0 ? dop : vp) + i * s.SR + piece;
            uint4 raw[kOctets];
#pragma unroll
            for (int q = 0; q < kOctets; ++q) {
              if (8 * q >= width) break;
              raw[q] = i < L ? *reinterpret_cast<const uint4*>(from + 8 * q) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int q = 0; q < kOctets; ++q) {
              if (8 * q >= width) break;
              store_input_octet<T>(to + 8 * q, slice, raw[q]);
            }
          } else {  // V_new, dV_new
            const float* from =
                (kind == 2 ? regions.sa + token * V : regions.dvnew + block * C * V + i * V) + v0 + piece;
            bf16* to = (kind == 2 ? vnp : dvnp) + i * s.SR + piece;
            const bool zero = kind == 2 && i >= L;
            float4 x[kQuads];
#pragma unroll
            for (int q = 0; q < kQuads; ++q) {
              if (4 * q >= width) break;
              x[q] = zero ? make_float4(0, 0, 0, 0) : *reinterpret_cast<const float4*>(from + 4 * q);
            }
#pragma unroll
            for (int q = 0; q < kQuads; q += 2) {
              if (4 * q >= width) break;
              store_part_octet(to + 4 * q, slice, x[q], x[q + 1]);
            }
          }
        }
      }
      __syncthreads();
      {
        ProductPhase<bf16> phase;
        const auto dout = in_rows(dop, slice, s.SR), v = in_rows(vp, slice, s.SR);
        const auto vn = fp32_rows(vnp, slice, s.SR), dvn = fp32_rows(dvnp, slice, s.SR);
        const auto s0 = fp32_rows(s0p, state_slice, s.SR), ds = fp32_rows(dsp, state_slice, s.SR);
        plane_product(phase, C, C, lower(pairs, true), prior(pairs, C), term(dout, v, VS));
        plane_product(phase, C, C, lower(pairs + C * C, true), prior(pairs + C * C, C), term(dout, vn, VS));
        plane_product(phase, C, K, put(dw_sum, HR), prior(dw_sum, HR), term(dvn, s0, VS));
        plane_product(phase, C, K, sums(qs, qs_sum), prior(qs_sum, HR), term(dout, s0, VS));
        plane_product(phase, C, K, sums(ks, ks_sum), prior(ks_sum, HR), term(v, ds, VS));
        plane_product(phase, C, K, sums(bs, bs_sum), prior(bs_sum, HR), term(vn, ds, VS));
        // X^T dV_new and A_ak v, into planes for the next phase
        plane_product(phase, C, VS, to_planes(dakvp, slice, s.SR), none,
                      term(fp32_depth(xp, square, s.CR), fp32_depth(dvnp, slice, s.SR), C));
        plane_product(phase, C, VS, to_planes(akvp, slice, s.SR), none,
                      term(fp32_rows(akp, square, s.CR), in_depth(vp, slice, s.SR), C));
      }
      __syncthreads();
      {
        ProductPhase<bf16> phase;
        plane_product(phase, C, C, lower(pairs + 2 * C * C, false), prior(pairs + 2 * C * C, C),
                      term(fp32_rows(dakvp, slice, s.SR), in_rows(vp, slice, s.SR), VS));
        plane_product(phase, C, C, lower(dx, false), prior(dx, C),
                      term(fp32_rows(dvnp, slice, s.SR), fp32_rows(akvp, slice, s.SR), VS));
        // dv = A_qk^T dO + k~ dS + A_ak^T (X^T dV_new)
        plane_product(
            phase, C, VS,
            [&](int m, int j, float x0, float x1) {
              if (m < L) {
                T* to = g.dv + (first_row + std::int64_t(m) * d.H) * V + v0 + j;
                to[0] = from_float<T>(x0), to[1] = from_float<T>(x1);
              }
            },
            none, term(fp32_depth(qkp, square, s.CR), in_depth(dop, slice, s.SR), C),
            term(fp32_rows(ktp, keys, s.KR), fp32_depth(dsp, state_slice, s.SR), K),
            term(fp32_depth(akp, square, s.CR), fp32_depth(dakvp, slice, s.SR), C));
      }
      __syncthreads();  // the slices are staged again
    }

    // dX's part through W, X^T dW, then X^T dX and dA_ab = X^T dX X^T. (X^T dW's and dA_ab's stores are
    // written out rather than put() and lower(): those change four instructions of the kernel, not yet
    // timed.)
    for (int e = threadIdx.x; e < C * K / 2; e += kBlockThreads) {
      const int i = 2 * e / K, c = 2 * e % K;
      const float2 x = *reinterpret_cast<const float2*>(dw_sum + i * HR + c);
      const float2 y = *reinterpret_cast<const float2*>(ag + i * K + c);
      store_part_pairs(dwp + i * s.KR + c, keys, x.x, x.y);
      store_part_pairs(agp + i * s.KR + c, keys, y.x, y.y);
    }
    __syncthreads();
    const auto x_rows = fp32_rows(xp, square, s.CR);
    const auto x_depth = fp32_depth(xp, square, s.CR);
    {
      ProductPhase<bf16> phase;
      plane_product(
          phase, C, C,
          [&](int i, int m, float x0, float x1) {
            store_part_pairs(dxp + i * s.CR + m, square, m < i ? x0 : 0.0f, m + 1 < i ? x1 : 0.0f);
          },
          [&](int i, int m) { return dx[i * C + m]; },
          term(fp32_rows(dwp, keys, s.KR), fp32_rows(agp, keys, s.KR), K));
      plane_product(
          phase, C, K,
          [&](int i, int c, float x0, float x1) {
            *reinterpret_cast<float2*>(xdw + i * K + c) = make_float2(x0, x1);
          },
          none, term(x_depth, fp32_depth(dwp, keys, s.KR), C));
    }
    __syncthreads();
    {
      ProductPhase<bf16> phase;
      plane_product(phase, C, C, to_planes(xdxp, square, s.CR), none,
                    term(x_depth, fp32_depth(dxp, square, s.CR), C));
    }
    __syncthreads();
    {
      ProductPhase<bf16> phase;
      float* dab = pairs + 3 * C * C;
      plane_product(
          phase, C, C,
          [&](int i, int m, float x0, float x1) {
            *reinterpret_cast<float2*>(dab + i * C + m) =
                make_float2(m < i ? x0 : 0.0f, m + 1 < i ? x1 : 0.0f);
          },
          none, term(fp32_rows(xdxp, square, s.CR), x_rows, C));
    }
    for (int c = threadIdx.x; c < K; c += kBlockThreads) terms[at_terms.state_dot + c] = state_dot[c];
    __syncthreads();  // the next chunk's staging takes the room
  }
}

}  // namespace flabench::rwkv7
