// simple_gla's gate gradient after the backward's fused passes (chunk_fused_forward.cu,
// simple_gla_fused_backward): scans over each head's tokens of the passes' per-token dots.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/common/chunk/decays.cuh"

namespace flabench::chunk {

// What the scans read, the dots each in `slices` rows of partials ([slices][B H][T], summed in order), all
// before the scale: q_t . dq_t and k_t . dk_t without their diagonal terms (equal, so they cancel) and
// without dk's term through the final state's gradient, and k_t . (that term); and g, h0 and d_ht (null: no
// initial state, no final state's gradient) for e^{G_T} h0 . d_ht.
struct GateGradDots {
  float *dq, *dk;  // (the scan's scratch too: it overwrites their first rows)
  const float* final;
  int slices;
  const __nv_bfloat16* g;
  const float *h0, *d_ht;
};

// dg_t = e^{G_T} h0 . d_ht + scale (sum_{s < t} k_s . dk_s^final + sum_{s >= t} (q_s . dq_s - k_s . dk_s)),
// for every head, on `stream`. The dots' rows are its scratch: it overwrites the first of dq's and dk's.
void launch_scalar_gate_grads(const GateGradDots& dots, const Dims& d, __nv_bfloat16* dg,
                              cudaStream_t stream);

}  // namespace flabench::chunk
