// rwkv7 chunk, step 3 of the forward: the outputs, one block per (chunk and slice of value columns,
// batch * head), from the chunk's first state S (step 2), its V_new (step 2) and q e^{Γ}, A_qk, A_qb
// (step 1):
//   o = (q ⊙ e^{Γ}) S + A_qk v + A_qb V_new       (q = scale * r; Γ inclusive, so e^{Γ} <= 1)
// on the tensor cores for bf16 inputs (output_tiles: q e^{Γ}, A_qk and A_qb arrive from step 1 as bf16 planes
// and are read whole by ldmatrix, S and V_new split as they are read, v as it is), on the CUDA cores for fp16
// and fp32.
#pragma once

#include <cuda_bf16.h>

#include <type_traits>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/rwkv7/chunk_tiles.cuh"

namespace flabench::rwkv7 {

constexpr int kOutputColumns = 32;

// Value columns per output block: kOutputColumns, or 16 where V is an odd multiple of 16.
__host__ __device__ constexpr int output_columns(int V) {
  return V % kOutputColumns == 0 ? kOutputColumns : 16;
}

// Rows padded_row()'s (chunk_workspace.h), so that the tensor cores' fragment reads fall on distinct banks.
// fp32 layout (the CUDA cores'): q e^Γ [C][K], S [K][VO], A_qk and A_qb [C][C], v and V_new [C][VO].
__host__ __device__ constexpr int output_shared_floats(int C, int K) {
  return C * padded_row(K)                      // q e^Γ (from step 1)
         + K * padded_row(kOutputColumns)       // S
         + 2 * C * padded_row(C)                // A_qk, A_qb
         + 2 * C * padded_row(kOutputColumns);  // v, V_new
}
// bf16's: q e^Γ, A_qk, A_qb as two bf16 planes each, S and V_new fp32, v bf16.
__host__ __device__ constexpr int output_plane_bytes(int C, int K) {
  return 2 * C * padded_row(K, 2) * 2             // q e^Γ
         + K * padded_row(kOutputColumns) * 4     // S
         + 2 * 2 * C * padded_row(C, 2) * 2       // A_qk, A_qb
         + C * padded_row(kOutputColumns, 2) * 2  // v
         + C * padded_row(kOutputColumns) * 4;    // V_new
}
__host__ __device__ constexpr int output_shared_bytes(int C, int K, bool planes) {
  return planes ? output_plane_bytes(C, K) : 4 * output_shared_floats(C, K);
}

__device__ __forceinline__ float4 load4(const float* at) {
  return *reinterpret_cast<const float4*>(at);
}

// bf16's outputs on the tensor cores: the C x VO block in 16 x 8 tiles, a warp's tiles in one row of tiles,
// A's fragments (q e^Γ, A_qk, A_qb: two planes each, `plane` elements from high to low) by ldmatrix, S and
// V_new split in two bf16 parts as they are read (three products a tile, as chunk::mma_k16's Exact::both),
// v bf16 already (two). store_pair(i, col, first, second) for the elements (i, col) and (i, col + 1), col
// even.
template <int C, int VO, class StorePair>
__device__ void output_tiles(const __nv_bfloat16* qg, int qg_plane, int QP, const float* S,
                             const __nv_bfloat16* qk, const __nv_bfloat16* qb, int a_plane,
                             const __nv_bfloat16* vs, const float* vnew, int K, const StorePair& store_pair) {
  using chunk::Exact;
  using Op = __nv_bfloat16;
  constexpr int AP = padded_row(C, 2), VP = padded_row(VO), VP2 = padded_row(VO, 2), NT = VO / 8;
  constexpr int warps = kThreads / 32;
  constexpr int row_warps = warps / (C / 16) > 0 ? warps / (C / 16) : 1;  // warps a row of tiles
  constexpr int NW = NT / row_warps > 0 ? NT / row_warps : 1;             // tiles a warp
  const int warp = threadIdx.x / 32, m0 = 16 * (warp / row_warps), n0 = 8 * NW * (warp % row_warps);
  if (m0 >= C || n0 >= VO) return;  // C = 16: more warps than tiles
  float acc[NW][4] = {};
  std::uint32_t af[2][4];
  const auto planes = [&](const Op* a, int plane, int ld, int k0) {
    chunk::a_stored_mk<Op>(af[0], a, ld, m0, k0);
    chunk::a_stored_mk<Op>(af[1], a + plane, ld, m0, k0);
  };
  for (int k0 = 0; k0 < K; k0 += 16) {
    planes(qg, qg_plane, QP, k0);
    chunk::mma_b_split<Op, NW, Exact::both>(acc, NW, af[0], af[1], k0, n0,
                                            [&](int c, int j) { return S[c * VP + j]; });
  }
#pragma unroll
  for (int j0 = 0; j0 < C; j0 += 16) {
    planes(qk, a_plane, AP, j0);
    chunk::mma_b_stored_kn<Op, NW, 2>(acc, NW, af, vs, VP2, j0, n0);
    planes(qb, a_plane, AP, j0);
    chunk::mma_b_split<Op, NW, Exact::both>(acc, NW, af[0], af[1], j0, n0,
                                            [&](int m, int j) { return vnew[m * VP + j]; });
  }
  chunk::for_each_pair(acc, NW, m0, n0, store_pair);
}

// bf16's block: its operands staged (q e^Γ, A_qk and A_qb planes, S, v by cp.async; V_new as fp32, zero past
// the sequence), then output_tiles.
template <int C>
__device__ void output_block_planes(const Pointers<__nv_bfloat16>& p, const ChunkDims& d, const float* first,
                                    const float* sa, const IntraOutputs& in, std::int64_t block, int b, int h,
                                    int t0, int L, int v0, int VO, char* smem) {
  using Op = __nv_bfloat16;
  const int K = d.K, QP = padded_row(K, 2), AP = padded_row(C, 2), VP = padded_row(VO);
  const int VP2 = padded_row(VO, 2);
  Op* qg = reinterpret_cast<Op*>(smem);                  // [2][C][QP]
  float* S = reinterpret_cast<float*>(qg + 2 * C * QP);  // [K][VP]
  Op* qk = reinterpret_cast<Op*>(S + K * VP);            // [2][C][AP]
  Op* qb = qk + 2 * C * AP;                              // [2][C][AP]
  Op* vs = qb + 2 * C * AP;                              // [C][VP2]
  float* vnew = reinterpret_cast<float*>(vs + C * VP2);  // [C][VP]
  // the planes: [2][rows][cols] bf16 in the block's fp32 slot (store_operand_pair)
  const auto planes = [&](Op* to, int ld, const float* region, int rows, int cols) {
    copy_rows<kThreads>(cols / 8, to, ld * 2, reinterpret_cast<const Op*>(region) + block * 2 * rows * cols,
                        cols * 2, 2 * rows);
  };
  planes(qg, QP, in.qg, C, K);
  planes(qk, AP, in.qk, C, C);
  planes(qb, AP, in.qb, C, C);
  copy_rows<kThreads>(VO / 4, S, VP * 4, first, std::int64_t(d.V) * 4, K);
  copy_rows<kThreads>(VO / 8, vs, VP2 * 2, p.v + token_row(d, b, t0, h) * d.V + v0,
                      std::int64_t(d.H) * d.V * 2, L);
  cp_async_commit();
  for (int e = threadIdx.x; e < (C - L) * VO;
       e += kThreads)  // v's rows past the sequence (ldmatrix reads them)
    vs[(L + e / VO) * VP2 + e % VO] = __float2bfloat16_rn(0.0f);
  stage_rows(vnew, VP, 1, sa, d, d.V, b, h, t0, C, L, v0, VO);
  cp_async_wait<0>();
  __syncthreads();

  Op* o = p.o + token_row(d, b, t0, h) * d.V + v0;  // row i at o + i * H V
  const int token_stride = d.H * d.V;
  const auto store_pair = [&](int i, int col, float x0, float x1) {
    if (i < L) ::flabench::store_pair(o + i * token_stride + col, x0, x1);
  };
  if (VO == kOutputColumns)
    output_tiles<C, kOutputColumns>(qg, C * QP, QP, S, qk, qb, C * AP, vs, vnew, K, store_pair);
  else
    output_tiles<C, 16>(qg, C * QP, QP, S, qk, qb, C * AP, vs, vnew, K, store_pair);
}

// C a compile-time constant, so each chunk size's kernel holds only its own rows' sums (a thread's rows:
// C * VO / kThreads) and takes the registers they need: 64 at C <= 32, for 4 blocks an SM (0.50 -> 0.42 ms
// at 4,4096,16,64); 85 at C = 64 for 3 (36 bytes spilled, still faster than 2 blocks at 126). Those are the
// CUDA-core path's numbers (v10); bf16's output_tiles compiles within the same bounds without spills (v14).
template <class T, int C>
__global__ void __launch_bounds__(kThreads, C == 64 ? 3 : 4)
    rwkv7_chunk_output_kernel(Pointers<T> p, ChunkDims d, ChunkRange range, const float* states,
                              const float* sa, IntraOutputs in) {
  extern __shared__ __align__(16) float smem[];
  constexpr int CP = padded_row(C);
  const int K = d.K, VO = output_columns(d.V), KP = padded_row(K), VP = padded_row(VO);
  // A chunk's value slices are neighbours in the grid, so they run together and read the chunk's q, decays,
  // A_qk and A_qb from L2 once it holds them (the slices last in the grid re-read them from DRAM).
  const int slices = d.V / VO, n = range.first + blockIdx.x / slices, v0 = blockIdx.x % slices * VO;
  const int bh = blockIdx.y, b = bh / d.H, h = bh % d.H;
  const int t0 = n * C, L = min(C, d.T - t0);
  const std::int64_t block = std::int64_t(bh) * d.chunks + n;
  const float* first = states + (std::int64_t(bh) * d.checkpoints + t0 / kCheckpointTokens) * K * d.V + v0;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    output_block_planes<C>(p, d, first, sa, in, block, b, h, t0, L, v0, VO, reinterpret_cast<char*>(smem));
  } else {
    float* qg = smem;           // [C][KP]
    float* S = qg + C * KP;     // [K][VP]
    float* qk = S + K * VP;     // [C][CP]
    float* qb = qk + C * CP;    // [C][CP]
    float* vs = qb + C * CP;    // [C][VP]
    float* vnew = vs + C * VP;  // [C][VP]
    // q e^Γ, S, A_qk and A_qb by cp.async, while v and V_new are staged as fp32 (zero past the sequence)
    copy_rows<kThreads>(K / 4, qg, KP * 4, in.qg + block * C * K, K * 4, C);
    copy_rows<kThreads>(VO / 4, S, VP * 4, first, std::int64_t(d.V) * 4, K);
    copy_rows<kThreads>(C / 4, qk, CP * 4, in.qk + block * C * C, C * 4, C);
    copy_rows<kThreads>(C / 4, qb, CP * 4, in.qb + block * C * C, C * 4, C);
    cp_async_commit();
    stage_rows(vs, VP, 1, p.v, d, d.V, b, h, t0, C, L, v0, VO);
    stage_rows(vnew, VP, 1, sa, d, d.V, b, h, t0, C, L, v0, VO);
    cp_async_wait<0>();
    __syncthreads();

    T* o = p.o + token_row(d, b, t0, h) * d.V + v0;  // row i at o + i * H V
    const int token_stride = d.H * d.V;
    const auto store = [&](int i, int col, float value) {
      if (i < L) o[i * token_stride + col] = from_float<T>(value);
    };
    // A thread sums column `col` of rows row_group + groups * r: independent sums it interleaves, reading
    // the rows' operands four at a time. A_qk and A_qb are zero above the diagonal, so every row runs over
    // all the chunk's tokens (v and V_new are zero past the last).
    const int groups = kThreads / VO;
    const int col = threadIdx.x % VO, row_group = threadIdx.x / VO;
    const auto sums = [&](auto count) {
      constexpr int rows = decltype(count)::value;
      float acc[rows] = {};
      for (int c = 0; c < K; c += 4) {
        const float s0 = S[c * VP + col], s1 = S[(c + 1) * VP + col], s2 = S[(c + 2) * VP + col],
                    s3 = S[(c + 3) * VP + col];
#pragma unroll
        for (int r = 0; r < rows; ++r) {
          const float4 q = load4(qg + (row_group + groups * r) * KP + c);
          acc[r] = fmaf(q.x, s0, fmaf(q.y, s1, fmaf(q.z, s2, fmaf(q.w, s3, acc[r]))));
        }
      }
      for (int m = 0; m < L; m += 4) {
        float vm[4], nm[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) vm[u] = vs[(m + u) * VP + col], nm[u] = vnew[(m + u) * VP + col];
#pragma unroll
        for (int r = 0; r < rows; ++r) {
          const int i = row_group + groups * r;
          const float4 a = load4(qk + i * CP + m), bq = load4(qb + i * CP + m);
          acc[r] = fmaf(a.x, vm[0], fmaf(a.y, vm[1], fmaf(a.z, vm[2], fmaf(a.w, vm[3], acc[r]))));
          acc[r] = fmaf(bq.x, nm[0], fmaf(bq.y, nm[1], fmaf(bq.z, nm[2], fmaf(bq.w, nm[3], acc[r]))));
        }
      }
#pragma unroll
      for (int r = 0; r < rows; ++r) store(row_group + groups * r, col, acc[r]);
    };
    if (VO == kOutputColumns)
      sums(std::integral_constant<int, C * kOutputColumns / kThreads>{});
    else
      sums(std::integral_constant<int, C * 16 / kThreads>{});
  }
}

}  // namespace flabench::rwkv7
