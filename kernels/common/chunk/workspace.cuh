// The chunk variant's scratch memory, one allocation per call (Variant::workspace_bytes), in this order:
//   states       [B*H, chunks, K, V] fp32  the state before every chunk (forward, read by the backward)
//   dstates      [B*H, chunks, K, V] fp32  the gradient of the state after every chunk (backward)
//   du_partial   [B, chunks, H, K]   fp32  rwkv6's per-chunk bonus-gradient partials (backward)
//   whole        [B*H, chunks, K]    fp32  each chunk's summed log decay per key channel (forward)
//   dg_partial   [B*H, chunks, C, K / 32] fp32  simple_gla's per-head dg summed over each 32-channel tile
//                                          (backward; the tiles are added in a fixed order afterwards)
//   keys_to_end  [B*H, chunks, C, K] T     k e^{decay after it to its chunk's end} (forward) and
//   queries_from_start                     scale q e^{decay seen from the chunk's start} (backward; the
//                [B*H, chunks, C, K] T     forward over prepared operands writes it, in both parts where a
//                                          backward follows, its rounded part alone where none does): the
//                                          scans' operands (kernels/common/chunk/scan.cuh; bf16's in two
//                                          planes of that shape, fp16's fp32: Prepared)
//   scores       [B*H, chunks, C, C] fp32  the intra-chunk scores A (forward, read by the backward's value
//                                          gradients instead of building them again)
//   bonus        [B*H, chunks, C]    fp32  rwkv6's q_i . (u k_i) beside them
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <span>
#include <type_traits>

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/variant.h"

namespace flabench::chunk {

// The scans' operands are stored as the inputs are, except fp16's: e^{-40 t} leaves fp16's range (6e-8)
// within a chunk, and the gradient of the initial state at such decays is made of nothing else, so they stay
// fp32.
template <class T>
using Prepared = std::conditional_t<std::is_same_v<T, __half>, float, T>;
// bf16's operand in two bf16 planes: the value rounded (what the chunk gradients read) and, a plane (B H
// chunks C K elements) later, what the rounding left, which only the scans read. A scan's state is fp32: with
// its operand in one bf16 part, the final state and the initial state's gradient carried bf16's rounding
// (5e-4 to 1.9e-3 where every other kernel keeps 5e-6; notes, version 51).
template <class T>
constexpr int kPreparedParts = std::is_same_v<T, __nv_bfloat16> ? 2 : 1;
inline std::size_t prepared_size(DType dtype) {
  return dtype == DType::fp16   ? sizeof(float)
         : dtype == DType::bf16 ? 2 * dtype_size(dtype)
                                : dtype_size(dtype);
}  // bytes an element, every part

struct Workspace {
  float *states, *dstates, *du_partial, *whole, *dg_partial;
  std::byte *keys_to_end, *queries_from_start;  // of the call's dtype
  float *scores = nullptr, *bonus = nullptr;    // null where the backward rebuilds A (gsa's passes)
  // Where set, the value gradients that make the forward output (chunk_value_grads_kernel's kOutput) read q
  // from these fp32 rows and multiply each row of the output by its factor (gsa's fp16 pass 1: dz balanced
  // per row, as its dq pass reads it)
  const float *queries_fp32 = nullptr, *output_row_scales = nullptr;
};

inline std::size_t chunk_count(const Problem& p) {
  return std::size_t((p.T + p.chunk_size - 1) / p.chunk_size);
}

__host__ __device__ inline int key_tiles(int K) {
  return (K + kKeyTile - 1) / kKeyTile;
}
inline std::size_t key_tiles(const Problem& p) {
  return std::size_t(key_tiles(int(p.K)));
}

inline std::size_t workspace_bytes(const Problem& p) {
  const std::size_t heads = p.B * p.H, chunks = chunk_count(p);
  return sizeof(float) * heads * chunks *
             (2 * p.K * p.V + 2 * p.K + p.chunk_size * key_tiles(p) + p.chunk_size * (p.chunk_size + 1)) +
         2 * prepared_size(p.dtype) * heads * chunks * p.chunk_size * p.K;
}

// The prepared keys' room (keys_to_end: [B*H, chunks, C, K] in the prepared dtype's parts), which a scalar
// gate's kernels (simple_gla in bf16) never fill: they scale k and q in registers and make no prepared
// operand. Its forward's scan factors (scalar_factors) and its backward's reverse scan in runs
// (state_grad_runs.h) take it, one after the other: the backward reads no forward factor.
inline float* prepared_keys_room(const Workspace& ws) {
  return reinterpret_cast<float*>(ws.keys_to_end);
}
inline std::size_t prepared_keys_room_floats(const Problem& p) {
  return prepared_size(p.dtype) * p.B * p.H * chunk_count(p) * p.chunk_size * p.K / sizeof(float);
}

// A scalar gate's factors for the scans (simple_gla in bf16; scan.cuh, kScalarGate): per chunk, for its C
// tokens, e^{decay after token t to the chunk's end} (the forward's, of k) or scale e^{decay seen from the
// chunk's start} (the backward's, of q), then at kMaxChunk e^{the chunk's summed decay}, in rows of
// kFactorRow floats. The forward's take the prepared keys' room, the backward's the prepared queries'.
constexpr int kFactorRow = kMaxChunk + 4;
inline std::size_t scalar_factor_bytes(const Problem& p) {
  return sizeof(float) * p.B * p.H * chunk_count(p) * kFactorRow;
}
inline float* scalar_factors(const Workspace& ws) {
  return prepared_keys_room(ws);
}

inline Workspace carve_workspace(std::span<std::byte> bytes, const Problem& p) {
  auto* base = reinterpret_cast<float*>(bytes.data());
  const std::size_t heads = p.B * p.H, chunks = chunk_count(p), KV = p.K * p.V, states = heads * chunks * KV,
                    per_channel = heads * chunks * p.K;
  float* whole = base + 2 * states + per_channel;
  float* dg_partial = whole + per_channel;
  auto* keys = reinterpret_cast<std::byte*>(dg_partial + heads * chunks * p.chunk_size * key_tiles(p));
  const std::size_t prepared = prepared_size(p.dtype) * heads * chunks * p.chunk_size * p.K;
  auto* scores = reinterpret_cast<float*>(keys + 2 * prepared);
  return {base,
          base + states,
          base + 2 * states,
          whole,
          dg_partial,
          keys,
          keys + prepared,
          scores,
          scores + heads * chunks * p.chunk_size * p.chunk_size};
}

}  // namespace flabench::chunk
