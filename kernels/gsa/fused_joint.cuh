// gsa's fused_recurrent forward in one kernel (kernels/gsa/fused_recurrent.cu picks it where pass 1 holds at
// most 8 keys per thread): both fp32 states in registers, the softmax between the passes in shared memory.
// One block per (batch, key/value head, slice of V) with two groups of warps:
// - pass-1 warps: a thread owns kRows (8, 16 or 32) keys of one Hk column (slot m). Per chunk of kChunk
//   tokens they wait for the chunk's rows (k, q of every query head, s, f, v, copied by cp.async one chunk
//   ahead), convert them once to fp32 (exp(f) taken once) and step the columns through the chunk writing
//   scale * Hk_t^T q per query head (the K / kRows threads of a column add partials with shuffles).
// - pass-2 warps: a thread owns kRows slots of one Hv column (value j of the block's slice) and steps it
//   through the chunk before, writing o = Hv_t^T p (the M / kRows threads of a column add partials).
// The groups step consecutive chunks at once, so a token costs the slower pass, not both; the conversion
// and the softmax (one warp per row, all warps) sit between them. Pass 1 does not depend on V, so every
// slice of V repeats it: with few heads the slices fill the GPU. Decays enter only as exp(f) <= 1: f down
// to -40 cannot overflow.
#pragma once

#include <optional>
#include <string>

#include "kernels/common/cp_async.cuh"
#include "kernels/common/cuda_check.h"
#include "kernels/common/format.h"
#include "kernels/common/lane_sum.cuh"
#include "kernels/common/recurrence_pointers.cuh"
#include "kernels/gsa/fused_rows.cuh"
#include "kernels/gsa/pointers.cuh"

namespace flabench::gsa::joint {

constexpr int kMaxThreads = 1024;
constexpr int kMaxPassThreads = 512;  // per pass

// The block's work: `slice` values of V, and the thread counts of the two passes.
struct Plan {
  int slices, slice;
  int rows;  // state elements of one column per thread (8, 16 or 32): the fewest that fit the thread budget
  int pass1_threads, pass2_threads, threads;
};

inline Plan plan(const Problem& p, int sm_count) {
  Plan plan{};
  // Split V while the blocks stay within one wave (a block of up to 1024 threads takes an SM) and each slice
  // keeps at least 16 values. One block more than the SMs is a second wave with the whole scan to run.
  plan.slices = 1;
  while (p.B * p.H * plan.slices * 2 <= sm_count && p.V % (2 * plan.slices) == 0 &&
         p.V / (2 * plan.slices) >= 16)
    plan.slices *= 2;
  plan.slice = int(p.V / plan.slices);
  // Few elements per thread: the scan is latency-bound, so more threads with shorter per-token work win.
  plan.rows = 8;
  while (plan.rows < 32 &&
         (p.M * p.K / plan.rows > kMaxPassThreads || plan.slice * p.M / plan.rows > kMaxPassThreads))
    plan.rows *= 2;
  plan.pass1_threads = int(p.M * p.K / plan.rows);  // whole warps: M >= 32 and K >= rows
  plan.pass2_threads = (plan.slice * int(p.M / plan.rows) + 31) / 32 * 32;
  plan.threads = plan.pass1_threads + plan.pass2_threads;
  return plan;
}

// Shared memory per block: the converted chunk in fp32 (k and q for pass 1; s, decay, this slice of v and the
// slot weights twice, one chunk per pass), then the staging ring of raw rows.
inline std::size_t shared_floats(const Problem& p, const Plan& plan) {
  return kChunk * (p.K + p.G * p.K + 2 * (2 * p.M + plan.slice + p.G * p.M));
}

enum Segment { kKeys, kQueries, kSlots, kGates, kValues };

template <class T>
fused::StagePlan stage_plan(const Pointers<T>& p, const Problem& problem, int slice) {
  fused::StagePlan plan;
  const int K = int(problem.K), M = int(problem.M), V = int(problem.V), GK = int(problem.G * problem.K);
  plan.add(p.k, sizeof(T), K, K);
  plan.add(p.q, sizeof(T), GK, GK);  // head h's query heads are G adjacent rows: one row of G x K per token
  plan.add(p.s, sizeof(T), M, M);
  plan.add(p.f, sizeof(T), M, M);
  plan.add(p.v, sizeof(T), V, slice, slice);
  return plan;
}

// Every staged row is a multiple of 16 bytes under limits() (K, M >= 32, slices of >= 16 values), so a
// token's record is the plain sum of its rows.
inline std::size_t shared_bytes(const Problem& p, const Plan& work) {
  const std::size_t record = dtype_size(p.dtype) * (p.K + p.G * p.K + 2 * p.M + work.slice);
  return shared_floats(p, work) * sizeof(float) + fused::kStages * kChunk * ((record + 15) / 16 * 16);
}

// The fp32 buffers: k [C][K], q [C][G][K], then s, decay [2][C][M], v [2][C][slice] and weights [2][C][G][M],
// which hold two chunks (chunk i in half i % 2).
struct ChunkBuffers {
  float *k, *q, *s, *decay, *v, *weights;
  int M, slice, GM;

  __device__ static ChunkBuffers carve(float* base, const Dims& d, int slice) {
    ChunkBuffers c;
    c.M = d.M, c.slice = slice, c.GM = d.G * d.M;
    c.k = base;
    c.q = c.k + kChunk * d.K;
    c.s = c.q + kChunk * d.G * d.K;
    c.decay = c.s + 2 * kChunk * d.M;
    c.v = c.decay + 2 * kChunk * d.M;
    c.weights = c.v + 2 * kChunk * slice;
    return c;
  }
  __device__ float* end() const { return weights + 2 * kChunk * GM; }
  __device__ float* s_of(int chunk) const { return s + (chunk % 2) * kChunk * M; }
  __device__ float* decay_of(int chunk) const { return decay + (chunk % 2) * kChunk * M; }
  __device__ float* v_of(int chunk) const { return v + (chunk % 2) * kChunk * slice; }
  __device__ float* weights_of(int chunk) const { return weights + (chunk % 2) * kChunk * GM; }
};

// kSingleQuery: G = 1, the common case, with the per-token loops over query heads gone at compile time.
template <class T, int kRows, bool kSingleQuery>
__global__ void __launch_bounds__(kRows >= 32 ? kMaxPassThreads : kMaxThreads)
    gsa_fused_fwd_kernel(Pointers<T> p, Dims d, int slice, int pass1_threads, fused::StagePlan stage) {
  extern __shared__ __align__(16) float smem[];
  const ChunkBuffers c = ChunkBuffers::carve(smem, d, slice);
  const int K = d.K, V = d.V, M = d.M, G = kSingleQuery ? 1 : d.G;
  const int bh = blockIdx.x, b = bh / d.H, h = bh % d.H, j0 = blockIdx.y * slice;
  const int chunks = (d.T + kChunk - 1) / kChunk;
  char* const ring = reinterpret_cast<char*>(c.end());  // raw rows, chunk i in slot i % kStages
  const auto slot = [&](int chunk) { return ring + (chunk % fused::kStages) * stage.slot_bytes(); };
  const bool first_group = threadIdx.x < pass1_threads;
  // pass 1: column m of Hk, keys [key_group * kRows, +kRows); pass 2: column j0 + jj of Hv, slots likewise.
  // The last pass-2 warp may have lanes past the slice's columns: they step column 0 and write nothing (the
  // column sums shuffle across all 32 lanes).
  const int tid = first_group ? threadIdx.x : threadIdx.x - pass1_threads;
  const int key_groups = K / kRows, slot_groups = M / kRows;
  const int m = tid / key_groups, key_group = tid % key_groups;
  const bool writes = first_group || tid < slice * slot_groups;
  const int jj = writes ? tid / slot_groups : 0, slot_group = tid % slot_groups;

  float state[kRows];  // Hk's column m (pass 1) or Hv's column j0 + jj (pass 2)
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    state[r] = first_group ? p.hk0[std::int64_t(bh) * K * M + (key_group * kRows + r) * M + m]
                           : p.hv0[std::int64_t(bh) * M * V + (slot_group * kRows + r) * V + j0 + jj];

  if (first_group)
    fused::stage_chunk(stage, slot(0), {0, min(kChunk, d.T)}, b, h, d.T, d.H, tid, pass1_threads);
  // Iteration i: the pass-1 warps take chunk i (wait for its rows, convert, pass 1) while the pass-2 warps
  // take chunk i - 1; then every warp takes the softmax of chunk i. Block barriers only, three per chunk.
  for (int i = 0; i <= chunks; ++i) {
    const int t0 = i * kChunk, length = min(kChunk, d.T - t0);
    if (first_group && i < chunks) {
      if (i + 1 < chunks)
        fused::stage_chunk(stage, slot(i + 1), {t0 + kChunk, min(kChunk, d.T - t0 - kChunk)}, b, h, d.T, d.H,
                           tid, pass1_threads);
      else
        cp_async_commit();
      cp_async_wait<1>();
    }
    __syncthreads();  // chunk i's rows are in; chunk i - 1's softmax is done
    if (first_group && i < chunks) {
      const char* rows = slot(i);
      convert_rows<T>(stage, rows, kKeys, length, K, c.k, tid, pass1_threads);
      convert_rows<T>(stage, rows, kQueries, length, G * K, c.q, tid, pass1_threads);
      convert_rows<T>(stage, rows, kSlots, length, M, c.s_of(i), tid, pass1_threads);
      convert_rows<T>(stage, rows, kGates, length, M, c.decay_of(i), tid, pass1_threads, true);
      convert_rows<T>(stage, rows, kValues, length, slice, c.v_of(i), tid, pass1_threads);
    }
    __syncthreads();  // chunk i in fp32
    if (first_group && i < chunks) {
      const float* s_chunk = c.s_of(i);
      const float* decay_chunk = c.decay_of(i);
      float* weights = c.weights_of(i);
      for (int t = 0; t < length; ++t) {
        step_slot_vector(state, decay_chunk[t * M + m], s_chunk[t * M + m], c.k + t * K + key_group * kRows);
        for (int g = 0; g < G; ++g) {
          const float part = column_dot(state, c.q + (t * G + g) * K + key_group * kRows);
          const float logit = sum_over_lanes(part, key_groups);
          if (key_group == 0) weights[(t * G + g) * M + m] = d.scale * logit;
        }
      }
    }
    if (!first_group && i > 0) {  // chunk i - 1: pass 2
      const int t0 = (i - 1) * kChunk, length = min(kChunk, d.T - t0);
      const float* s_chunk = c.s_of(i - 1);
      const float* decay_chunk = c.decay_of(i - 1);
      const float* v_chunk = c.v_of(i - 1);
      const float* weights = c.weights_of(i - 1);
      for (int t = 0; t < length; ++t) {
        const float v = v_chunk[t * slice + jj];
        step_value_column(state, decay_chunk + t * M + slot_group * kRows,
                          s_chunk + t * M + slot_group * kRows, v);
        for (int g = 0; g < G; ++g) {
          const float part = column_dot(state, weights + (t * G + g) * M + slot_group * kRows);
          const float out = sum_over_lanes(part, slot_groups);
          if (writes && slot_group == 0) p.o[d.query_row(b, t0 + t, h, g) * V + j0 + jj] = from_float<T>(out);
        }
      }
    }
    __syncthreads();  // chunk i's logits are in; chunk i - 1 is done with
    if (i < chunks) softmax_rows(c.weights_of(i), length * G, M, threadIdx.x / 32, blockDim.x / 32);
  }

#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    if (first_group && blockIdx.y == 0)
      p.hkt[std::int64_t(bh) * K * M + (key_group * kRows + r) * M + m] = state[r];
    if (!first_group && writes)
      p.hvt[std::int64_t(bh) * M * V + (slot_group * kRows + r) * V + j0 + jj] = state[r];
  }
}

template <class T, int kRows, bool kSingleQuery>
void launch_kernel(const ForwardCall& call, const Plan& work) {
  const Problem& p = call.problem;
  const std::size_t shared = shared_bytes(p, work);
  allow_shared_memory(gsa_fused_fwd_kernel<T, kRows, kSingleQuery>, shared);
  const dim3 grid(unsigned(p.B * p.H), unsigned(work.slices));
  const Pointers<T> pointers = bind_forward<T>(call);
  gsa_fused_fwd_kernel<T, kRows, kSingleQuery><<<grid, work.threads, shared, call.stream>>>(
      pointers, make_dims(p), work.slice, work.pass1_threads, stage_plan(pointers, p, work.slice));
  FLA_CUDA_CHECK_LAUNCH();
}

template <class T, int kRows>
void launch(const ForwardCall& call, const Plan& work) {
  if (call.problem.G == 1)
    launch_kernel<T, kRows, true>(call, work);
  else
    launch_kernel<T, kRows, false>(call, work);
}

template <class T>
void forward(const ForwardCall& call) {
  const Plan work = plan(call.problem, current_device_attribute(cudaDevAttrMultiProcessorCount));
  with_rows<8>(work.rows, [&](auto rows) { launch<T, decltype(rows)::value>(call, work); });
}

// Whether one block holds both passes of `p` within the kernel's thread bounds at every GPU's plan.
inline bool threads_fit(const Plan& work) {
  const int most = work.rows >= 32 ? kMaxPassThreads : kMaxThreads;  // the kernel's launch bound
  return work.pass1_threads <= kMaxPassThreads && work.pass2_threads <= kMaxPassThreads &&
         work.threads <= most;
}
inline bool threads_fit(const Problem& p) {
  return threads_fit(plan(p, 1));  // the widest slice: the most threads
}

// The threads and shared memory this kernel needs for `p`, against `device`; nullopt when it fits.
inline std::optional<std::string> limits(const Problem& p, const DeviceLimits& device) {
  const Plan work = plan(p, 1);  // the widest slice: the most threads and shared memory
  const int most = work.rows >= 32 ? kMaxPassThreads : kMaxThreads;
  if (!threads_fit(work))
    return format("fused_recurrent would need %d + %d threads per block (at most %d per pass, %d in all)",
                  work.pass1_threads, work.pass2_threads, kMaxPassThreads, most);
  const std::size_t bytes = shared_bytes(p, work);
  if (bytes > device.shared_memory_per_block)
    return format("fused_recurrent stages %d tokens in %zu KiB of shared memory, the device allows %zu KiB",
                  kChunk, bytes / 1024, device.shared_memory_per_block / 1024);
  return std::nullopt;
}

}  // namespace flabench::gsa::joint
