// gsa's fused_recurrent forward as two kernels (kernels/gsa/fused_recurrent.cu picks it where one kernel's
// pass 1 would hold more than 8 keys per thread): the two passes as two scans, each with its fp32 state in
// registers, joined by an fp32 workspace of logits [B, T, HQ, M].
// - logits kernel (pass 1): a thread owns kRows keys of one Hk column (slot m); the columns are independent,
//   so the blocks of a head split the M slots and each SM holds a part of one head's Hk. Per chunk of kChunk
//   tokens the block stages k, q (every query head), s and f of its slots with cp.async one chunk ahead,
//   converts them to fp32 once (exp(f) taken once), steps its columns and writes scale Hk_t^T q per query
//   head (each thread leaves a partial per token; a column's K / kRows partials are added at the chunk's
//   end, off the per-token path).
// - output kernel (pass 2): a thread owns kRows slots of one Hv column (value j of the block's slice of V);
//   per chunk the block stages v, s, f and the chunk's logits, takes the softmax over M of each (token,
//   query head) row in fp32 (one warp per row), steps its columns and writes o = Hv_t^T p (partials
//   added at the chunk's end likewise).
// Split this way neither kernel repeats the other's work per block, and each spreads its state over as many
// SMs as the heads allow. Decays enter only as exp(f) <= 1: f down to -40 cannot overflow.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/common/cuda_check.h"
#include "kernels/common/format.h"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/gsa/fused_rows.cuh"
#include "kernels/gsa/pointers.cuh"

namespace flabench::gsa::split {

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
// Pass 1: columns are slots, each of K keys; pass 2: columns are values, each of M slots.
inline KernelPlan logits_plan(const Problem& p, int sm_count) {
  return kernel_plan(p, p.M, p.K, sm_count);
}
inline KernelPlan output_plan(const Problem& p, int sm_count) {
  return kernel_plan(p, p.V, p.M, sm_count);
}

// The staged rows and their fp32 conversions, per kernel. Every staged row is a multiple of 16 bytes under
// limits() (K, M >= 32; at least 8 columns per block of a 2-byte type), so a record is the plain sum.
enum LogitsSegment { kKeys, kQueries, kLogitSlots, kLogitGates };
enum OutputSegment { kValues, kOutputSlots, kOutputGates, kLogits };

// The converted chunk, then one partial sum per thread, token and query head (the sums over a column's
// threads wait for the chunk's end, off the per-token path).
inline std::size_t logits_floats(const Problem& p, const KernelPlan& k) {
  return kChunk * (p.K + p.G * p.K + 2 * k.columns + p.G * k.threads);
}
inline std::size_t output_floats(const Problem& p, const KernelPlan& k) {
  return kChunk * (k.columns + 2 * p.M + p.G * p.M + p.G * k.threads);
}
inline std::size_t logits_shared_bytes(const Problem& p, const KernelPlan& k) {
  const std::size_t record = dtype_size(p.dtype) * (p.K + p.G * p.K + 2 * k.columns);
  return logits_floats(p, k) * sizeof(float) + fused::kStages * kChunk * ((record + 15) / 16 * 16);
}
inline std::size_t output_shared_bytes(const Problem& p, const KernelPlan& k) {
  const std::size_t record = dtype_size(p.dtype) * (k.columns + 2 * p.M) + sizeof(float) * p.G * p.M;
  return output_floats(p, k) * sizeof(float) + fused::kStages * kChunk * ((record + 15) / 16 * 16);
}

template <class T>
fused::StagePlan logits_stage(const Pointers<T>& p, const Problem& problem, int columns) {
  fused::StagePlan plan;
  const int K = int(problem.K), M = int(problem.M), GK = int(problem.G * problem.K);
  plan.add(p.k, sizeof(T), K, K);
  plan.add(p.q, sizeof(T), GK, GK);  // head h's query heads are G adjacent rows: one row of G x K per token
  plan.add(p.s, sizeof(T), M, columns, columns);
  plan.add(p.f, sizeof(T), M, columns, columns);
  return plan;
}
template <class T>
fused::StagePlan output_stage(const Pointers<T>& p, const float* logits, const Problem& problem,
                              int columns) {
  fused::StagePlan plan;
  const int V = int(problem.V), M = int(problem.M), GM = int(problem.G * problem.M);
  plan.add(p.v, sizeof(T), V, columns, columns);
  plan.add(p.s, sizeof(T), M, M);
  plan.add(p.f, sizeof(T), M, M);
  plan.add(logits, sizeof(float), GM, GM);  // like q: the G query heads' rows of a token are adjacent
  return plan;
}

// Pass 1 for slots [m0, m0 + columns) of (batch, head) blockIdx.x: logits[b, t, h * G + g, m] = scale Hk_t^T
// q.
template <class T, int kRows>
__global__ void __launch_bounds__(kMaxThreads, 1)
    gsa_logits_kernel(Pointers<T> p, Dims d, int columns, float* logits, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const int K = d.K, M = d.M, G = d.G;
  float* const keys = smem;                        // [C][K]
  float* const queries = keys + kChunk * K;        // [C][G][K]
  float* const slots = queries + kChunk * G * K;   // [C][columns]
  float* const decays = slots + kChunk * columns;  // [C][columns]
  float* const parts = decays + kChunk * columns;  // [C][G][threads]
  char* const ring_base = reinterpret_cast<char*>(parts + kChunk * G * blockDim.x);
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, m0 = blockIdx.y * columns;
  // column m (of the block's) keys [key_group * kRows, + kRows)
  const int key_groups = K / kRows;
  const ColumnThread me(threadIdx.x, columns, key_groups);
  const int m = me.column, key_group = me.group;
  const std::int64_t state_base = std::int64_t(bh) * K * M + std::int64_t(key_group) * kRows * M + m0 + m;

  float state[kRows];
  load_column(state, p.hk0 + state_base, M);

  for_each_staged_chunk(stage, ring_base, d, [&](fused::ChunkSpan span, const char* rows) {
    convert_rows<T>(stage, rows, kKeys, span.length, K, keys, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kQueries, span.length, G * K, queries, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kLogitSlots, span.length, columns, slots, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kLogitGates, span.length, columns, decays, threadIdx.x, blockDim.x, true);
    __syncthreads();
    for (int t = 0; t < span.length; ++t) {
      const float e = decays[t * columns + m], s = slots[t * columns + m];
      const float* k = keys + t * K + key_group * kRows;
#pragma unroll
      for (int r = 0; r < kRows; ++r) state[r] = fmaf(state[r], e, k[r] * s);
      for (int g = 0; g < G; ++g)
        parts[(t * G + g) * blockDim.x + threadIdx.x] =
            column_dot(state, queries + (t * G + g) * K + key_group * kRows);
    }
    __syncthreads();
    finish_column_sums(parts, span.length * G, columns, key_groups, [&](int row, int column, float sum) {
      logits[d.query_row(b, span.t0 + row / G, h, row % G) * M + m0 + column] = d.scale * sum;
    });
  });
  if (me.writes) store_column(p.hkt + state_base, state, M);
}

// Pass 2 for values [j0, j0 + columns) of (batch, head) blockIdx.x: p = softmax(logits), o = Hv_t^T p.
template <class T, int kRows>
__global__ void __launch_bounds__(kMaxThreads, 1)
    gsa_output_kernel(Pointers<T> p, Dims d, int columns, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const int V = d.V, M = d.M, G = d.G;
  float* const values = smem;                      // [C][columns]
  float* const slots = values + kChunk * columns;  // [C][M]
  float* const decays = slots + kChunk * M;        // [C][M]
  float* const weights = decays + kChunk * M;      // [C][G][M]
  float* const parts = weights + kChunk * G * M;   // [C][G][threads]
  char* const ring_base = reinterpret_cast<char*>(parts + kChunk * G * blockDim.x);
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, j0 = blockIdx.y * columns;
  // column j (of the block's) slots [slot_group * kRows, + kRows)
  const int slot_groups = M / kRows;
  const ColumnThread me(threadIdx.x, columns, slot_groups);
  const int j = me.column, slot_group = me.group;
  const std::int64_t state_base = std::int64_t(bh) * M * V + std::int64_t(slot_group) * kRows * V + j0 + j;

  float state[kRows];
  load_column(state, p.hv0 + state_base, V);

  for_each_staged_chunk(stage, ring_base, d, [&](fused::ChunkSpan span, const char* rows) {
    convert_rows<T>(stage, rows, kValues, span.length, columns, values, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kOutputSlots, span.length, M, slots, threadIdx.x, blockDim.x);
    convert_rows<T>(stage, rows, kOutputGates, span.length, M, decays, threadIdx.x, blockDim.x, true);
    convert_rows<float>(stage, rows, kLogits, span.length, G * M, weights, threadIdx.x, blockDim.x);
    __syncthreads();
    softmax_rows(weights, span.length * G, M, threadIdx.x / 32, blockDim.x / 32);
    __syncthreads();
    for (int t = 0; t < span.length; ++t) {
      const float v = values[t * columns + j];
      step_value_column(state, decays + t * M + slot_group * kRows, slots + t * M + slot_group * kRows, v);
      for (int g = 0; g < G; ++g)
        parts[(t * G + g) * blockDim.x + threadIdx.x] =
            column_dot(state, weights + (t * G + g) * M + slot_group * kRows);
    }
    __syncthreads();
    finish_column_sums(parts, span.length * G, columns, slot_groups, [&](int row, int column, float sum) {
      p.o[d.query_row(b, span.t0 + row / G, h, row % G) * V + j0 + column] = from_float<T>(sum);
    });
  });
  if (me.writes) store_column(p.hvt + state_base, state, V);
}

// The logits [B, T, HQ, M] in fp32.
inline std::size_t logit_count(const Problem& p) {
  return std::size_t(p.B * p.T * p.H * p.G * p.M);
}
inline std::size_t workspace_bytes(const Problem& p) {
  return logit_count(p) * sizeof(float);
}

template <class T>
void forward(const ForwardCall& call) {
  const Problem& p = call.problem;
  const int sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
  const Pointers<T> pointers = bind_forward<T>(call);
  const Dims dims = make_dims(p);
  float* logits = reinterpret_cast<float*>(call.workspace.data());

  const KernelPlan first = logits_plan(p, sms);
  with_rows<4>(first.rows, [&](auto rows) {
    auto kernel = gsa_logits_kernel<T, decltype(rows)::value>;
    const std::size_t shared = logits_shared_bytes(p, first);
    allow_shared_memory(kernel, shared);
    kernel<<<dim3(unsigned(p.B * p.H), unsigned(first.split)), first.threads, shared, call.stream>>>(
        pointers, dims, first.columns, logits, logits_stage(pointers, p, first.columns));
  });
  FLA_CUDA_CHECK_LAUNCH();

  const KernelPlan second = output_plan(p, sms);
  with_rows<4>(second.rows, [&](auto rows) {
    auto kernel = gsa_output_kernel<T, decltype(rows)::value>;
    const std::size_t shared = output_shared_bytes(p, second);
    allow_shared_memory(kernel, shared);
    kernel<<<dim3(unsigned(p.B * p.H), unsigned(second.split)), second.threads, shared, call.stream>>>(
        pointers, dims, second.columns, output_stage(pointers, logits, p, second.columns));
  });
  FLA_CUDA_CHECK_LAUNCH();
}

// The threads and shared memory these kernels need for `p`, against `device`; nullopt when they fit.
inline std::optional<std::string> limits(const Problem& p, const DeviceLimits& device) {
  // one block per head: the most threads and shared memory any GPU's plan takes
  const KernelPlan first = logits_plan(p, 1), second = output_plan(p, 1);
  if (first.threads > kMaxThreads || second.threads > kMaxThreads)
    return format("fused_recurrent would need %d and %d threads per block (at most %d)", first.threads,
                  second.threads, kMaxThreads);
  const std::size_t bytes = std::max(logits_shared_bytes(p, first), output_shared_bytes(p, second));
  if (bytes > device.shared_memory_per_block)
    return format("fused_recurrent stages %d tokens in %zu KiB of shared memory, the device allows %zu KiB",
                  kChunk, bytes / 1024, device.shared_memory_per_block / 1024);
  return std::nullopt;
}

}  // namespace flabench::gsa::split
