// rwkv7 chunk's sizes and workspace. Host-safe, so tests/kernels/rwkv7_chunk_workspace_test.cpp checks the
// layout on the CPU.
//
// The workspace starts with the chunk forward's own intermediates (fp32, or as two bf16 planes in the same
// bytes where IntraOutputs says so), per (head, chunk): A_qk and A_qb
// [C][C] (the output's intra-chunk matrices), W [C][K] and U [C][V] (the WY form: a^T S_{t-1} of the chunk's
// rows is U + W S for the chunk's first state S), the state pass's factors: k and b decayed to the end of
// their 16-token step [C][K] each, and each step's decay [C / 16][K]; and the output pass's q e^{Γ} [C][K]
// (Γ from the chunk's start). Then fused_recurrent's workspace (kernels/common/fused_recurrent/workspace.h),
// whole where its backward follows: the state pass writes the states before every 16th token (at chunk starts
// only where the chunked backward follows, or no backward) and a^T S_{t-1} per token where that backward
// reads them, so the fused backward runs on them as it is, on the workspace from fused_base. A forward alone
// ends with those two regions. The chunked backward's regions take the place of fused_recurrent's
// backward-only ones (only one backward runs): X = (I - A_ab)^{-1} and A_ak [C][C] and, for bf16 inputs, W
// and b~ [C][K], A_qk and A_qb [C][C] and q e^{Γ} [C][K] in fp32 (the forward of a fwd+bwd writes them), the
// gradient of the state at the chunk's end
// [K][V] and of V_new [C][V] (the reverse scan's, chunk_backward_states.cuh), what the local gradients hand
// the per-channel ones (chunk_backward_channels.cuh): the pair matrices' gradients [4][C][C] and the
// per-channel terms (ChannelTerms), and the local gradients' scratch, one per resident block (LocalScratch,
// chunk_backward_local.cuh).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/common/fused_recurrent/workspace.h"
#include "kernels/rwkv7/rwkv7.h"

namespace flabench::rwkv7 {

constexpr int kCheckpointTokens = fused::kChunk;  // the fused backward's checkpoint interval
constexpr int kMaxChunk = 64;

// Elements to a row of n elements (element_bytes each) in shared memory, padded by 16 bytes: rows that a
// fragment read (ldmatrix's eight, or a thread group's) takes together then fall on different banks, and
// every row stays 16-byte aligned for vector and cp.async copies.
__host__ __device__ constexpr int padded_row(int n, int element_bytes = 4) {
  return n + 16 / element_bytes;
}

struct ChunkDims {
  int B = 0, T = 0, H = 0, K = 0, V = 0;
  int C = 0;            // tokens per chunk
  int chunks = 0;       // ceil(T / C)
  int checkpoints = 0;  // ceil(T / 16): states the fused backward reads, one before every 16th token
  float scale = 1;
};

// The chunks [first, end) one launch of a step covers: the forward runs in pieces of consecutive chunks so
// that one piece's state pass overlaps the next piece's intra, and at few heads the chunked backward so that
// one piece's reverse scan overlaps the later pieces' gradients (chunk.cu).
struct ChunkRange {
  int first = 0, end = 0;
  __host__ __device__ int count() const { return end - first; }
};

inline ChunkDims chunk_dims(const Problem& p) {
  ChunkDims d;
  d.B = int(p.B), d.T = int(p.T), d.H = int(p.H), d.K = int(p.K), d.V = int(p.V);
  d.C = p.chunk_size;
  d.chunks = (d.T + d.C - 1) / d.C;
  d.checkpoints = (d.T + kCheckpointTokens - 1) / kCheckpointTokens;
  d.scale = float(p.scale);
  return d;
}

// The local gradients' scratch of one block (chunk_backward_local.cuh), offsets in floats, [C][K] each: dW
// (a product over the value columns that shared memory does not keep) and a e^{Γe}.
struct LocalScratch {
  std::size_t dw, ag, floats;
  __host__ __device__ LocalScratch(int C, int K) {
    const std::size_t keys = std::size_t(C) * K;
    dw = 0, ag = keys, floats = 2 * keys;
  }
};

// The per-channel terms the local gradients hand the per-channel ones, per (head, chunk), offsets in floats:
// the products over the value columns dO S^T, X^T dW, v dS^T, V_new dS^T [C][K] each, and S . dS [K].
struct ChannelTerms {
  std::size_t qs, xdw, ks, bs, state_dot, floats;
  __host__ __device__ ChannelTerms(int C, int K) {
    const std::size_t keys = std::size_t(C) * K;
    qs = 0, xdw = keys, ks = 2 * keys, bs = 3 * keys, state_dot = 4 * keys;
    floats = state_dot + K;
  }
};
// Blocks of the local gradients that may be resident at once, each with its scratch (a block loops over the
// chunks): the scratch then stays in L2 rather than a copy per chunk going to memory.
constexpr int kLocalSlots = 1024;

// Offsets in floats; every region starts 16-byte aligned.
struct ChunkWorkspace {
  std::size_t qk, qb, w, u, kg, bg, decay, qg;           // the chunk forward's
  std::size_t fused_base, checkpoints, sa, fused_total;  // fused_recurrent's, from fused_base
  // the chunked backward's
  std::size_t x, ak, w32, bg32, qb32, qg32, dstates, dvnew, pairs, terms, scratch, total;
  std::size_t slots;  // blocks of scratch
  // fp32_copies: whether a bf16 forward also writes W, b~, A_qb and q e^Γ in fp32 (w32, bg32, qb32, qg32) for
  // the chunked backward's CUDA-core reverse scan; else those regions are empty.
  ChunkWorkspace(const Problem& p, bool fp32_copies) {
    const fused::WorkspaceLayout<Rwkv7Form> fused(p);
    const ChunkDims d = chunk_dims(p);
    const std::size_t blocks = std::size_t(d.B) * d.H * d.chunks;
    const auto aligned = [](std::size_t floats) { return (floats + 3) / 4 * 4; };
    std::size_t end = 0;
    const auto take = [&](std::size_t per_block) {  // the next region, per_block floats a (head, chunk)
      const std::size_t start = end;
      end += blocks * per_block;
      return start;
    };
    qk = take(d.C * d.C);
    qb = take(d.C * d.C);
    w = take(d.C * d.K);
    u = take(d.C * d.V);
    kg = take(d.C * d.K);
    bg = take(d.C * d.K);
    decay = take((d.C / kCheckpointTokens) * d.K);
    qg = take(d.C * d.K);
    fused_base = aligned(end);
    checkpoints = fused_base + fused.checkpoints;
    sa = fused_base + fused.sa;
    fused_total = fused_base + fused.total;
    end = aligned(fused_base + fused.dsa);  // what the forward writes ends here
    x = take(d.C * d.C);
    ak = take(d.C * d.C);
    const std::size_t copies = fp32_copies ? 1 : 0;
    w32 = take(copies * d.C * d.K);
    bg32 = take(copies * d.C * d.K);
    qb32 = take(copies * d.C * d.C);
    qg32 = take(copies * d.C * d.K);
    dstates = take(d.K * d.V);
    dvnew = take(d.C * d.V);
    pairs = take(4 * d.C * d.C);
    terms = take(aligned(ChannelTerms(d.C, d.K).floats));
    scratch = end;
    slots = blocks < std::size_t(kLocalSlots) ? blocks : std::size_t(kLocalSlots);
    total = scratch + slots * aligned(LocalScratch(d.C, d.K).floats);
  }
  // What a forward alone uses: the regions before the chunked backward's.
  std::size_t forward_total() const { return x; }
  // What a forward and the backward that follows use: the chunked one's regions, or fused_recurrent's whole.
  std::size_t backward_total(bool chunked) const { return chunked ? total : fused_total; }
};

}  // namespace flabench::rwkv7
