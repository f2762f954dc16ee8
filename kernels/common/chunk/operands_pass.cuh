// Every operand the state and output pass over prepared operands (prepared_fused_forward.cu) reads that
// depends on the per-key decays and not on the value slice, in one pass over q, k and g, a block per (batch,
// head, chunk): the keys' and the queries' prepared rows (the prepare kernel's, scan.cuh's write_prepared),
// the chunk's summed decay, and the intra-chunk scores A (intra_chunk.cuh) with rwkv6's bonus, into the
// workspace (Workspace::keys_to_end, queries_from_start, whole, scores, bonus). The backward reads the keys,
// the decays, A and the bonus as it reads the multi-kernel forward's, and, where it follows (for_backward),
// the queries' rows in both parts as its reverse scan's operand, so that it needs no prepare kernel of its
// own (kernels/notes/chunk.md, version 96). The key channels 64 at a time (operands_key_tile): 73 KiB a
// block, three an SM.
#pragma once

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/common/chunk/decays.cuh"
#include "kernels/common/chunk/intra_chunk.cuh"
#include "kernels/common/chunk/scan.cuh"
#include "kernels/common/chunk/staging.cuh"
#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/recurrence_pointers.cuh"

namespace flabench::chunk {

constexpr int kOperandsThreads = 256;

// The key channels staged at a time: 64 where K is a multiple of it. Version 88 took the output pass's 32 at
// K = 128 (46 KiB, four blocks an SM), whose four rounds of staging, sums and barriers a chunk measured
// slower (kernels/notes/chunk.md, version 90).
__host__ __device__ inline int operands_key_tile(int K) {
  return K % 64 == 0 ? 64 : K;
}

__host__ __device__ inline int operands_pass_floats(int C, int K, int KT) {
  return Decays::floats(C, KT) + 2 * C * (KT + kPad) + C * (C + kPad) + C + intra_chunk_scratch_ints(C, KT);
}

// Three blocks an SM, as their shared memory allows: 80 registers a thread. Without the bound ptxas took 64
// and rwkv6's instance spilled 12 bytes (kernels/notes/chunk.md, version 91).
template <class Form, class T>
__global__ void __launch_bounds__(kOperandsThreads, 3)
    chunk_operands_kernel(Pointers<T> p, Dims d, Workspace ws, int KT, bool for_backward) {
  extern __shared__ float smem[];
  const int K = d.K, C = d.C, ldK = KT + kPad, ldC = C + kPad;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, n = blockIdx.y, t0 = n * C;
  Decays dec = Decays::carve(smem, C, KT);  // of the KT channels staged
  float* q = smem + Decays::floats(C, KT);  // [C][KT + pad]
  float* k = q + C * ldK;                   // [C][KT + pad]
  float* A = k + C * ldK;                   // [C][C + pad]
  float* bonus = A + C * ldC;               // [C]: rwkv6's q_i . (u k_i)
  int* scratch = reinterpret_cast<int*>(bonus + C);
  const T* u = Form::value.bonus ? p.u + h * K : nullptr;
  const std::int64_t chunk = std::int64_t(bh) * d.chunks() + n;
  auto* keys = reinterpret_cast<Prepared<T>*>(ws.keys_to_end) + chunk * C * K;
  auto* queries = reinterpret_cast<Prepared<T>*>(ws.queries_from_start) + chunk * C * K;
  const std::int64_t plane = std::int64_t(gridDim.x) * gridDim.y * C * K;  // bf16's second part
  zero_intra_chunk_scores(A, ldC, C, bonus);
  for (int c0 = 0; c0 < K; c0 += KT) {
    __syncthreads();  // the last tile's reads are done
    stage_with_decays<Form>(dec, p.g, d, b, h, t0, c0, token_rows(p.q, d, b, h, t0, C, K, c0, KT, q, ldK),
                            token_rows(p.k, d, b, h, t0, C, K, c0, KT, k, ldK));
    // (the scores scale q and k in place only after a barrier of their own, once these have read them)
    write_prepared<T, Operand::keys_to_end>(dec, k, ldK, C, KT, 1.0f, keys + c0, K, plane, true);
    write_prepared<T, Operand::queries_from_start>(dec, q, ldK, C, KT, d.scale, queries + c0, K, plane,
                                                   for_backward);
    for (int c = threadIdx.x; c < KT; c += kOperandsThreads) ws.whole[chunk * K + c0 + c] = dec.whole(c);
    intra_chunk_scores<Form, T, true>(dec, q, k, ldK, KT, C, A, ldC, u ? u + c0 : nullptr, bonus, scratch);
  }
  finish_intra_chunk_scores<Form>(A, ldC, C);
  __syncthreads();
  store_intra_chunk_scores<Form>(A, ldC, C, bonus, ws.scores + chunk * C * C, ws.bonus + chunk * C);
}

}  // namespace flabench::chunk
