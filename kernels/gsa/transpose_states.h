// gsa's state transposes: Hk's [K x M] between gsa's layout and the scans' [M x K] (hk0 in, hkt out, their
// gradients back), and Hv^T's checkpoints back to [M x V] where pass 2 saved them transposed
// (gla_passes_plan.h, values_saved_transposed). One kernel for all: a 32 x 32 tile a block through shared
// memory, each of its 64 threads moving 16-byte vectors of four rows, every load issued before the first
// is waited on (version 52's 4-byte tiles moved 403 MB in 0.169 ms at 1,24576,16,64, these in 0.111;
// kernels/notes/gsa.md, version 53).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace flabench::gsa {

// `count` matrices [R x C] at `from` into [C x R] at `to`. Every caller's R and C are multiples of 16 (the
// chunk form's K and M, the fused passes' K, M and V) and its buffers 16-byte aligned; anything else is a
// bug.
void transpose_states(const float* from, float* to, std::int64_t count, int R, int C, cudaStream_t stream);
// Of `heads` runs of `per_head` such matrices each (a head's states before its chunks), the matrices
// [first, first + count) of every run.
void transpose_states(const float* from, float* to, std::int64_t heads, std::int64_t per_head,
                      std::int64_t first, std::int64_t count, int R, int C, cudaStream_t stream);

}  // namespace flabench::gsa
