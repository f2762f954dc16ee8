// simple_gla's gate gradient after the backward's fused passes (chunk_fused_forward.cu,
// simple_gla_fused_backward): a scan over each head's tokens of the passes' per-token dots.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/common/chunk/decays.cuh"

namespace flabench::chunk {

// What the scan reads: the dots q_t . dq_t and k_t . dk_t before the scale and without their diagonal terms
// (equal, so they cancel), each in `slices` rows of partials ([slices][B H][T], summed in order), and for
// the final state's term S_T transposed ([B H][V][K]) with the incoming gradient d_ht ([B H][K][V]; null:
// no term).
struct GateGradDots {
  const float *dq, *dk;
  int slices;
  const float* final_state_transposed;
  const float* d_ht;
};

// dg_t = scale sum_{s >= t} (q_s . dq_s - k_s . dk_s) + S_T . d_ht, for every head, on `stream`.
void launch_scalar_gate_grads(const GateGradDots& dots, const Dims& d, __nv_bfloat16* dg, cudaStream_t stream);

}  // namespace flabench::chunk
