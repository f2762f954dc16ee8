// gsa chunk's workspace: byte offsets of its regions, in order, each 16-byte aligned (the scan and the
// output pass move them in 16-byte vectors). Host-safe: tests/kernels/gsa_chunk_workspace_test.cpp checks it
// on the CPU.
#pragma once

#include <algorithm>
#include <cstddef>

#include "kernels/common/problem.h"

namespace flabench::gsa {

// The scratch one pass's backward writes: its state gradients and its reverse scan's operand.
struct PassScratch {
  std::size_t state_grads, queries_from_start;
};

// Whether pass 1's key gradients add its ds and df onto pass 2's (chunk_backward.cuh): where the passes run
// side by side (G = 1); with grouped queries pass 1's go to slot_grads and gate_grads and are added
// afterwards. fp32 added afterwards until its key gradients' wait for pass 2's cost more than the adds
// (gsa.md, version 38); since pass 2's chunk gradients start early (version 41) it folds too (version 42).
inline bool adds_in_key_grads(const Problem& p) {
  return p.G == 1;
}

struct ChunkWorkspace {
  std::size_t value_states;  // [B*H, chunks, M, V] fp32: Hv before every chunk
  std::size_t key_states;    // [B*H, chunks, M, K] fp32: Hk^T before every chunk (the scan's layout)
  std::size_t key_initial;   // [B*H, M, K] fp32: hk0 transposed for the scan
  std::size_t key_final;     // [B*H, M, K] fp32: Hk^T after the last chunk, before its transpose to hkt
  std::size_t whole;         // [B*H, chunks, M] fp32: each chunk's summed log decay per slot
  std::size_t slots_to_end;  // [B*H, chunks, C, M] of prepared_bytes: s e^{decay after it to the chunk's end}
  std::size_t weights;       // [B, T, HQ, M] of the dtype: p, the softmax of the logits (pass 2's queries)
  // the backward's
  std::size_t saved_weights;  // [B, T, HQ, M] fp32: p, written by a forward whose backward follows
  std::size_t logit_grads;    // [B, T, HQ, M] of the dtype: dz, pass 1's output gradient (its queries)
  // where !adds_in_key_grads (empty otherwise)
  std::size_t slot_grads;   // [B, T, H, M] of the dtype: pass 1's ds (pass 2's is written in place)
  std::size_t gate_grads;   // [B, T, H, M] of the dtype: pass 1's df
  std::size_t state_grads;  // [B*HQ, chunks, M, max(K, V)] fp32: a pass's state gradient after every chunk
  std::size_t queries_from_start;  // [B*HQ, chunks, C, M] of prepared_bytes: the reverse scan's operand
  // at G = 1 (empty otherwise) the same two for pass 2's backward, which runs beside pass 1's
  std::size_t side_state_grads, side_queries_from_start;
  // grouped queries (G > 1; empty at G = 1): per query head, copies of its key/value head's
  // (chunk_groups.cuh)
  std::size_t slot_copies, gate_copies;  // [B, T, HQ, M] of the dtype: s, f
  std::size_t row_copies;                // [B, T, HQ, max(K, V)] of the dtype: v (pass 2), then k (pass 1)
  std::size_t state_copies;              // [B*HQ, chunks, M, max(K, V)] fp32: Hv, then Hk^T
  std::size_t whole_copies;              // [B*HQ, chunks, M] fp32
  std::size_t slots_to_end_copies;       // [B*HQ, chunks, C, M] of prepared_bytes
  std::size_t final_grad_copies;         // [B*HQ, M, max(K, V)] fp32: the final state's gradient, first copy
  // and their gradients, added over the copies afterwards
  std::size_t initial_grad_copies;                 // [B*HQ, M, max(K, V)] fp32
  std::size_t slot_grad_copies, gate_grad_copies;  // [B, T, HQ, M] of the dtype
  std::size_t row_grad_copies;                     // [B, T, HQ, max(K, V)] of the dtype
  // fp16 only (empty otherwise): the logit gradient kept out of fp16's subnormals (chunk_logits.cuh,
  // balance_row)
  std::size_t logit_grads_fp32;  // [B, T, HQ, M] fp32 (16-bit inputs): dz (fp16's balanced), the operand of
                                 // pass 1's reverse scan and, for fp16, dq's queries
  std::size_t balanced_queries;  // [B, T, HQ, K] fp16: q over its row's balance, pass 1's do
  std::size_t row_scales;        // [B, T, HQ] fp32: 2^-e, the balance dz's row took (dq's factor)
  std::size_t total;

  PassScratch scratch() const { return {state_grads, queries_from_start}; }
  PassScratch side_scratch() const { return {side_state_grads, side_queries_from_start}; }

  // prepared_bytes: the scan operand's element size (chunk::prepared_size), dtype_bytes: the inputs'.
  ChunkWorkspace(const Problem& p, std::size_t prepared_bytes, std::size_t dtype_bytes) {
    const auto aligned = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
    const std::size_t heads = p.B * p.H, chunks = (p.T + p.chunk_size - 1) / p.chunk_size;
    std::size_t at = 0;
    const auto region = [&](std::size_t bytes) {
      const std::size_t start = at;
      at += aligned(bytes);
      return start;
    };
    value_states = region(sizeof(float) * heads * chunks * p.M * p.V);
    key_states = region(sizeof(float) * heads * chunks * p.M * p.K);
    key_initial = region(sizeof(float) * heads * p.M * p.K);
    key_final = region(sizeof(float) * heads * p.M * p.K);
    whole = region(sizeof(float) * heads * chunks * p.M);
    slots_to_end = region(prepared_bytes * heads * chunks * p.chunk_size * p.M);
    weights = region(dtype_bytes * p.B * p.T * p.H * p.G * p.M);
    saved_weights = region(sizeof(float) * p.B * p.T * p.H * p.G * p.M);
    logit_grads = region(dtype_bytes * p.B * p.T * p.H * p.G * p.M);
    const std::size_t added_after = adds_in_key_grads(p) ? 0 : 1;
    slot_grads = region(added_after * dtype_bytes * p.B * p.T * p.H * p.M);
    gate_grads = region(added_after * dtype_bytes * p.B * p.T * p.H * p.M);
    const std::size_t D = std::max(p.K, p.V), query_heads = heads * p.G;
    const std::size_t query_rows = p.B * p.T * p.H * p.G, copies = p.G > 1 ? 1 : 0;
    state_grads = region(sizeof(float) * query_heads * chunks * p.M * D);
    queries_from_start = region(prepared_bytes * query_heads * chunks * p.chunk_size * p.M);
    const std::size_t side = p.G == 1 ? 1 : 0;
    side_state_grads = region(side * sizeof(float) * query_heads * chunks * p.M * D);
    side_queries_from_start = region(side * prepared_bytes * query_heads * chunks * p.chunk_size * p.M);
    slot_copies = region(copies * dtype_bytes * query_rows * p.M);
    gate_copies = region(copies * dtype_bytes * query_rows * p.M);
    row_copies = region(copies * dtype_bytes * query_rows * D);
    state_copies = region(copies * sizeof(float) * query_heads * chunks * p.M * D);
    whole_copies = region(copies * sizeof(float) * query_heads * chunks * p.M);
    slots_to_end_copies = region(copies * prepared_bytes * query_heads * chunks * p.chunk_size * p.M);
    final_grad_copies = region(copies * sizeof(float) * query_heads * p.M * D);
    initial_grad_copies = region(copies * sizeof(float) * query_heads * p.M * D);
    slot_grad_copies = region(copies * dtype_bytes * query_rows * p.M);
    gate_grad_copies = region(copies * dtype_bytes * query_rows * p.M);
    row_grad_copies = region(copies * dtype_bytes * query_rows * D);
    const std::size_t fp16 = p.dtype == DType::fp16 ? 1 : 0, sixteen_bit = dtype_bytes == 2 ? 1 : 0;
    logit_grads_fp32 = region(sixteen_bit * sizeof(float) * query_rows * p.M);
    balanced_queries = region(fp16 * dtype_bytes * query_rows * p.K);
    row_scales = region(fp16 * sizeof(float) * query_rows);
    total = at;
  }
};

}  // namespace flabench::gsa
