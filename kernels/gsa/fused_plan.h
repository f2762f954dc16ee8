// gsa fused_recurrent's split and backward scans as the host plans them: blocks per head, state elements
// per thread, threads and shared memory per block, and which backward runs. Host-safe (no device code), so
// tests/kernels/gsa_fused_plan_test.cpp checks on the CPU that every plan limits() lets through stays within
// the kernels' launch bounds and the device's shared memory at every SM count.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

#include "kernels/common/dtype.h"
#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/problem.h"

namespace flabench::gsa {

using fused::kChunk;  // tokens staged at a time

namespace split {

constexpr int kTargetThreads = 256;  // per block: the fewest state elements per thread within this many
constexpr int kMaxThreads = 512;     // the kernels' launch bound (32 elements per thread at most)

// How many elements of a column each thread holds: the fewest (from 4) that keep `elements` within
// kTargetThreads threads, at most 32.
inline int rows_for(std::int64_t elements) {
  int rows = 4;
  while (rows < 32 && elements / rows > kTargetThreads) rows *= 2;
  return rows;
}

// A kernel's blocks per head: doubled while the blocks of all heads stay within one wave (one block per SM)
// and each keeps at least 8 columns.
inline int blocks_per_head(const Problem& p, std::int64_t columns, int sm_count) {
  int split = 1;
  while (p.B * p.H * split * 2 <= sm_count && columns / (split * 2) >= 8) split *= 2;
  return split;
}

struct KernelPlan {
  int split, columns;  // blocks per head, and the columns (slots for pass 1, values for pass 2) of each
  int rows;            // elements of a column per thread
  int threads;  // whole warps; lanes past the block's columns help stage and shuffle, and write nothing
};

inline KernelPlan kernel_plan(const Problem& p, std::int64_t columns, std::int64_t column_length,
                              int sm_count) {
  KernelPlan k{};
  k.split = blocks_per_head(p, columns, sm_count);
  k.columns = int(columns / k.split);
  k.rows = rows_for(k.columns * column_length);
  k.threads = int((k.columns * (column_length / k.rows) + 31) / 32 * 32);
  return k;
}
// SlotScan: columns are slots, each of X elements; SlotMix: columns are the X, each of M slots.
inline KernelPlan scan_plan(const Problem& p, int X, int sm_count) {
  return kernel_plan(p, p.M, X, sm_count);
}
inline KernelPlan mix_plan(const Problem& p, int X, int sm_count) {
  return kernel_plan(p, X, p.M, sm_count);
}

// The converted chunk, then one partial sum per thread, token and query head (the sums over a column's
// threads wait for the chunk's end, off the per-token path), then the staging ring.
inline std::size_t scan_shared_bytes(const Problem& p, int X, const KernelPlan& k) {
  const std::size_t floats = kChunk * (X + p.G * X + 2 * k.columns + p.G * k.threads);
  const std::size_t record = dtype_size(p.dtype) * (X + p.G * X + 2 * k.columns);
  return floats * sizeof(float) + fused::kStages * kChunk * ((record + 15) / 16 * 16);
}
inline std::size_t mix_shared_bytes(const Problem& p, const KernelPlan& k) {
  const std::size_t floats = kChunk * (k.columns + 2 * p.M + p.G * p.M + p.G * k.threads);
  const std::size_t record = dtype_size(p.dtype) * (k.columns + 2 * p.M) + sizeof(float) * p.G * p.M;
  return floats * sizeof(float) + fused::kStages * kChunk * ((record + 15) / 16 * 16);
}

// One token's a_{t,g} for a block of SlotMixGrad: with one query head only the block's columns are staged,
// with more the whole row of G x X (a slice of each head's row would take G copies per token).
struct MixGradA {
  int count, offset;  // staged floats per token; the block's column 0 of head g at g * X + offset
  __host__ __device__ static MixGradA of(int G, int X, int columns, int x0) {
    return G == 1 ? MixGradA{columns, 0} : MixGradA{G * X, x0};
  }
};

// A SlotScanGrad thread keeps its elements' states through a chunk in registers, the whole chunk (kChunk x
// kScanGradRows floats, up to 255 registers: one block per SM) where the grid fits the SMs that way, else a
// quarter at a time (two blocks per SM at 128 registers, the chunk's steps 15 -> 24). A block holds at most
// kScanGradElements elements (the blocks of a head split the slots).
constexpr int kScanGradRows = 4;
constexpr int kScanGradElements = 1024;
constexpr int kScanGradThreads = kScanGradElements / kScanGradRows;

inline KernelPlan mix_grad_plan(const Problem& p, int X, int sm_count) {
  return mix_plan(p, X, sm_count);
}
inline KernelPlan scan_grad_plan(const Problem& p, int X, int sm_count) {
  KernelPlan k{};
  k.split = blocks_per_head(p, p.M, sm_count);
  while (p.M / k.split * X > kScanGradElements && p.M / k.split > 8) k.split *= 2;
  k.columns = int(p.M / k.split);
  k.rows = kScanGradRows;
  k.threads = (k.columns * (X / k.rows) + 31) / 32 * 32;
  return k;
}

// Whether the slot-scan gradient keeps whole chunks of states (one block per SM) for `plan`: where its blocks
// fit the SMs one each.
inline bool scan_grad_whole_chunks(const Problem& p, const KernelPlan& plan, int sm_count) {
  return p.B * p.H * plan.split <= sm_count;
}

inline std::size_t padded(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}
inline std::size_t mix_grad_shared_bytes(const Problem& p, int X, const KernelPlan& k) {
  const int a = MixGradA::of(int(p.G), X, k.columns, 0).count;
  const std::size_t floats = kChunk * (a + 2 * p.M + p.G * p.M + k.threads);
  const std::size_t record = padded(dtype_size(p.dtype) * a) + 2 * padded(dtype_size(p.dtype) * p.M) +
                             padded(sizeof(float) * p.G * p.M);
  return floats * sizeof(float) + fused::kStages * kChunk * record;
}
inline std::size_t scan_grad_shared_bytes(const Problem& p, int X, const KernelPlan& k) {
  const std::size_t floats = kChunk * (X + p.G * X + p.G * p.M + 2 * k.columns + 2 * k.threads);
  const std::size_t record = padded(dtype_size(p.dtype) * X) + padded(dtype_size(p.dtype) * p.G * X) +
                             padded(sizeof(float) * p.G * p.M) + 2 * padded(dtype_size(p.dtype) * k.columns);
  return floats * sizeof(float) + fused::kStages * kChunk * record;
}

}  // namespace split

// The one slot count at which an fp32 fwd+bwd on the gla passes takes their scans' backward: elsewhere the
// chunk form takes every such shape, in every dtype, and is the faster (fused_recurrent.cu, InChunks), so the
// scans' query gradients are built for this M alone (query_grads.cuh; pinned by
// tests/kernels/gsa_fused_plan_test.cpp over every room the battery plans for).
constexpr int kScanBackwardSlots = 128;

}  // namespace flabench::gsa
