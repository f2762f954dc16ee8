// rwkv7 chunk's sizes and workspace. Host-safe, so tests/kernels/rwkv7_chunk_workspace_test.cpp checks the
// layout on the CPU.
//
// The workspace starts with fused_recurrent's (kernels/common/fused_recurrent/workspace.h): the state pass
// writes the states before every 16th token and a^T S_{t-1} per token where that backward reads them, so the
// backward runs on them as it is. The chunk forward's own fp32 intermediates follow, per (head, chunk):
// A_qk and A_qb [C][C] (the output's intra-chunk matrices), W [C][K] and U [C][V] (the WY form: a^T S_{t-1}
// of the chunk's rows is U + W S for the chunk's first state S), and the state pass's factors: k and b
// decayed to the end of their 16-token step [C][K] each, and each step's decay [C / 16][K]; and the output
// pass's q e^{Γ} [C][K] (Γ from the chunk's start).
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
  int checkpoints = 0;  // ceil(T / 16): states the backward reads, one before every 16th token
  float scale = 1;
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

// Offsets in floats; every region starts 16-byte aligned.
struct ChunkWorkspace {
  std::size_t checkpoints, sa;                         // fused_recurrent's, where its backward reads them
  std::size_t qk, qb, w, u, kg, bg, decay, qg, total;  // the chunk forward's
  explicit ChunkWorkspace(const Problem& p) {
    const fused::WorkspaceLayout<Rwkv7Form> fused(p);
    const ChunkDims d = chunk_dims(p);
    const std::size_t blocks = std::size_t(d.B) * d.H * d.chunks;
    const auto aligned = [](std::size_t floats) { return (floats + 3) / 4 * 4; };
    checkpoints = fused.checkpoints;
    sa = fused.sa;
    qk = aligned(fused.total);
    qb = qk + blocks * d.C * d.C;
    w = qb + blocks * d.C * d.C;
    u = w + blocks * d.C * d.K;
    kg = u + blocks * d.C * d.V;
    bg = kg + blocks * d.C * d.K;
    decay = bg + blocks * d.C * d.K;
    qg = decay + blocks * (d.C / kCheckpointTokens) * d.K;
    total = qg + blocks * d.C * d.K;
  }
};

}  // namespace flabench::rwkv7
