// The shared memory of rwkv7 chunk backward's local gradients as the host plans it: the fp32 kernel's
// (chunk_backward_local.cuh) in floats, the 16-bit kernel's (chunk_backward_local_mma.cuh) as byte offsets of
// its planes. Host-safe, so tests/kernels/rwkv7_chunk_local_plan_test.cpp checks it on the CPU.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include "kernels/rwkv7/chunk_workspace.h"

namespace flabench::rwkv7 {

constexpr int kLocalSlice = 32;      // value columns staged at a time (the 16-bit kernel: a piece of a slice)
constexpr int kWideLocalSlice = 64;  // the 16-bit kernel's slice where its blocks fit (chunk.cu's rule)

// The fp32 kernel, in floats. Kept for the chunk: X [C][C + 1], the gradients of A_qk, A_qb, A_ak, A_ab and X
// [C][C], S . dS per key channel [K]. Then, in turn: the value slices (S, dS [K][33]; dO, v, V_new, dV_new,
// X^T dV_new, A_ak v [C][33]) with k~ [C][K], the decays' sums in the slices' room before them; dW and
// a e^{Γe} [C][K + 1] with X^T dX [C][C + 1].
__host__ __device__ constexpr int local_kept_floats(int C, int K) {
  return C * (C + 1) + 5 * C * C + K;
}
__host__ __device__ constexpr int local_shared_floats(int C, int K) {
  const int slices = (2 * K + 6 * C) * (kLocalSlice + 1) + C * K;
  const int after = 2 * C * (K + 1) + C * (C + 1);
  return local_kept_floats(C, K) + (slices > after ? slices : after);
}

// The 16-bit kernel: where its block keeps what, bytes from the start of its shared memory; an fp32 operand
// is two bf16 planes (4 bytes an element), a 16-bit input `input_parts` (bf16's one, fp16's two). Kept for
// the chunk: X (its lower triangle), A_ak (strictly lower) and A_qk [C][C + 8]; dX [C][C] and S . dS [K] as
// fp32. Then, in turn: k~ [C][K + 8], with the decays' sums (fp32) or the value slices of `columns` columns
// after it (S, dS [K][columns + 8]; dO, v, V_new, dV_new, X^T dV_new, A_ak v [C][columns + 8]); after the
// slices dW and a e^{Γe} [C][K + 8] and dX, X^T dX [C][C + 8]. Rows of an odd number of 16-byte vectors, so
// that ldmatrix's eight rows fall on distinct banks.
struct LocalMmaPlan {
  int CR = 0, KR = 0, SR = 0;  // row lengths of the [.][C], [.][K] and slices' planes (elements)
  int x = 0, ak = 0, qk = 0, dx = 0, state_dot = 0;                        // kept
  int kt = 0, sums = 0, s0 = 0, ds = 0, dout = 0, v = 0, vn = 0, dvn = 0;  // in turn
  int dakv = 0, akv = 0, slices_end = 0, sums_end = 0;
  int dw = 0, ag = 0, dxp = 0, xdx = 0, after_end = 0;  // after the slices
  int bytes = 0;
};
__host__ __device__ constexpr LocalMmaPlan local_mma_plan(int C, int K, int input_parts,
                                                          int columns = kLocalSlice) {
  LocalMmaPlan s;
  s.CR = padded_row(C, 2), s.KR = padded_row(K, 2), s.SR = padded_row(columns, 2);
  const int square = 4 * C * s.CR, keys = 4 * C * s.KR, state_slice = 4 * K * s.SR, slice = 4 * C * s.SR;
  s.ak = s.x + square, s.qk = s.ak + square, s.dx = s.qk + square, s.state_dot = s.dx + 4 * C * C;
  s.kt = s.state_dot + 4 * K;
  s.sums = s.s0 = s.kt + keys;
  s.ds = s.s0 + state_slice, s.dout = s.ds + state_slice, s.v = s.dout + input_parts * slice / 2;
  s.vn = s.v + input_parts * slice / 2, s.dvn = s.vn + slice, s.dakv = s.dvn + slice, s.akv = s.dakv + slice;
  s.slices_end = s.akv + slice;
  s.sums_end = s.sums + 4 * (2 * C * K + C / kCheckpointTokens * K);
  s.dw = s.kt, s.ag = s.dw + keys, s.dxp = s.ag + keys, s.xdx = s.dxp + square;
  s.after_end = s.xdx + square;
  s.bytes = s.slices_end > s.sums_end ? s.slices_end : s.sums_end;
  s.bytes = s.bytes > s.after_end ? s.bytes : s.after_end;
  return s;
}

// The value slices' sums of dW, dO S^T, v dS^T and V_new dS^T ([C][K] fp32 each, rows padded_row(K) long),
// kept in shared memory after the plan's bytes between the slices by the one-block kernel where they fit,
// rather than read back from the workspace (kernels/notes/rwkv7_chunk.md, v69): bytes, and row length in
// floats.
__host__ __device__ constexpr int local_held_row(int K) {
  return padded_row(K);
}
__host__ __device__ constexpr int local_held_bytes(int C, int K) {
  constexpr int kSums = 4;
  return kSums * C * local_held_row(K) * int(sizeof(float));
}

// The local gradients' shared memory, either kernel: fp32 inputs', or 16-bit ones' in `input_parts` planes
// (bf16 1, fp16 2).
__host__ __device__ constexpr int local_shared_bytes(int C, int K, int input_bytes, int input_parts) {
  return input_bytes == 4 ? 4 * local_shared_floats(C, K) : local_mma_plan(C, K, input_parts).bytes;
}

}  // namespace flabench::rwkv7
