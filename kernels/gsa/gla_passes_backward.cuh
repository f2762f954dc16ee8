// gsa's fused_recurrent backward on gla's fused_recurrent kernels, after the gla passes' forward
// (gla_passes.cuh), which leaves the fp32 logits, p in the inputs' type and the checkpoints of Hk^T and Hv:
//   pass 2   gla's backward with q = p, k = s, g = f, v = v: dv, dHv0, pass 2's ds and df, and (its dq, in
//            fp32) dp = Hv_t do_t;
//   softmax  dz = p (dp - p . dp), p again in fp32 from the logits;
//   pass 1   taken transposed (first_pass_transposed): Hk^T [M x K] steps as diag(e^{f_t}) Hk^T + s_t k_t^T,
//            gla's own recurrence with keys s, values k and decay f on its rows. gla's forward with queries
//            dz writes dq = scale Hk_t dz_t; gla's backward with queries dz and output gradient q gives pass
//            1's ds (its dk), dk (its dv), df (its dg) and dHk0^T, its row pass from the checkpoints of Hk^T
//            the forward's pass 1 saved. Its dq, scale Hk_t^T q_t = z_t, is not written. Where warps are
//            few the row pass runs beside the dq forward and the column pass, else the column pass beside
//            the dq forward (kernels/notes/gsa.md, versions 19 and 21).
// Hk's states cross between gsa's [K x M] and gla's [M x K] layout in a transpose each way; ds and df are
// pass 1's and pass 2's terms added. Every scan only multiplies by e^{f} <= 1, as gla's do: f down to -40
// cannot overflow.
#pragma once

#include <cstdint>

#include "kernels/gsa/fused_workspace.h"
#include "kernels/gsa/gla_passes.cuh"

namespace flabench::gsa::gla_passes {

// Each of gridDim.x matrices [R x C] (fp32) into [C x R], a 32 x 32 tile a block (blockIdx.y).
__global__ void __launch_bounds__(256) transpose_states_kernel(const float* from, float* to, int R, int C) {
  __shared__ float tile[32][33];  // a column read down the tile crosses every bank once
  const std::int64_t base = std::int64_t(blockIdx.x) * R * C;
  const int tiles_across = (C + 31) / 32;
  const int r0 = blockIdx.y / tiles_across * 32, c0 = blockIdx.y % tiles_across * 32;
  for (int i = threadIdx.y; i < 32; i += blockDim.y)
    if (r0 + i < R && c0 + threadIdx.x < C)
      tile[i][threadIdx.x] = from[base + std::int64_t(r0 + i) * C + c0 + threadIdx.x];
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y)
    if (c0 + i < C && r0 + threadIdx.x < R)
      to[base + std::int64_t(c0 + i) * R + r0 + threadIdx.x] = tile[threadIdx.x][i];
}

inline void transpose_states(const float* from, float* to, std::int64_t count, int R, int C,
                             cudaStream_t stream) {
  transpose_states_kernel<<<dim3(unsigned(count), unsigned((R + 31) / 32 * ((C + 31) / 32))), dim3(32, 8), 0,
                            stream>>>(from, to, R, C);
  FLA_CUDA_CHECK_LAUNCH();
}

// ds += ds_keys and df += df_keys: pass 1's slot gradients added to pass 2's, eight elements a thread.
template <class T>
__global__ void __launch_bounds__(256)
    add_slot_grads_kernel(T* ds, const T* ds_keys, T* df, const T* df_keys, std::int64_t eights) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= 2 * eights) return;
  const bool slots = i < eights;
  const std::int64_t at = (slots ? i : i - eights) * 8;
  T* into = (slots ? ds : df) + at;
  float sum[8], part[8];
  fused::load8(into, sum);
  fused::load8((slots ? ds_keys : df_keys) + at, part);
#pragma unroll
  for (int j = 0; j < 8; ++j) sum[j] += part[j];
  store_eight(into, sum);
}

// The backward after forward(): its logits, weights (p in T) and Hv's checkpoints, in FusedWorkspace w.
template <class T>
void backward(const BackwardCall& call) {
  const Problem& p = call.problem;
  const gsa::Pointers<T> in = bind_inputs<T>(call.inputs);
  const gsa::GradPointers<T> d = bind_grads<T>(call);
  const FusedWorkspace w(p);
  float* const base = reinterpret_cast<float*>(call.workspace.data());
  const std::int64_t rows = p.B * p.T * p.H * p.M, state = p.B * p.H * p.K * p.M, heads = p.B * p.H;
  float* const room = base + w.gla_backward;
  const auto token_buffer = [&](int i) { return reinterpret_cast<T*>(room + i * rows); };
  float* const dp = room;  // fp32: dz = p (dp - p . dp) cancels where dp's slots are alike
  T *const dz = token_buffer(1), *const ds_keys = token_buffer(2), *const df_keys = token_buffer(3);
  float* const states = room + FusedWorkspace::kGlaTokenBuffers * rows;
  float *const hk0_t = states, *const dhkt_t = states + state, *const dhk0_t = states + 2 * state;
  float* const hkt_t = states + 3 * state;  // the dq scan's final state, not needed
  const T* weights = reinterpret_cast<const T*>(base + w.weights);
  const cudaStream_t stream = call.stream;

  fused::launch_backward<GlaForm, T>(pass_pointers<T>(weights, in.s, in.v, in.f, in.hv0, nullptr, nullptr),
                                     flabench::GradPointers<T>{d.d_o, d.d_hvt, nullptr, d.ds, d.dv, d.df,
                                                               nullptr, nullptr, nullptr, d.dhv0, dp},
                                     second_pass(p), base + w.value_checkpoints, stream);
  launch_softmax_grad<T>(base + w.logits, dp, dz, nullptr, rows / p.M, int(p.M), 1.0f, stream);
  FLA_CUDA_CHECK_LAUNCH();

  const Problem keys = first_pass_transposed(p);
  transpose_states(in.hk0, hk0_t, heads, int(p.K), int(p.M), stream);
  transpose_states(d.d_hkt, dhkt_t, heads, int(p.K), int(p.M), stream);
  const fused::BackwardPasses<GlaForm, T> keys_backward(
      pass_pointers<T>(dz, in.s, in.k, in.f, hk0_t, nullptr, nullptr),
      flabench::GradPointers<T>{in.q, dhkt_t, nullptr, ds_keys, d.dk, df_keys, nullptr, nullptr, nullptr,
                                dhk0_t},
      keys, base + w.key_checkpoints);
  {  // all three of pass 1's scans need only dz (the row pass reads the forward's checkpoints of Hk^T)
    const ForkedStream fork(stream);
    const auto dq_forward = [&](cudaStream_t on) {
      fused::launch_forward<GlaForm, T>(pass_pointers<T>(dz, in.s, in.k, in.f, hk0_t, d.dq, hkt_t),
                                        fused::launch_geometry(keys), nullptr, nullptr, on);
    };
    // Where warps are few (layout.h), the row pass beside the other two (1,24576,16,64: 0.87x of the other
    // order); else the column pass beside the dq forward and the row pass after it (0.96-0.99x of the first
    // order at 64 heads and at D = 128). kernels/notes/gsa.md, version 21.
    if (keys_backward.g.side_by_side) {
      keys_backward.rows(stream);
      dq_forward(fork.side());
      keys_backward.columns(fork.side());
    } else {
      dq_forward(stream);
      keys_backward.columns(fork.side());
      keys_backward.rows(stream);
    }
  }
  transpose_states(dhk0_t, d.dhk0, heads, int(p.M), int(p.K), stream);
  add_slot_grads_kernel<T>
      <<<unsigned((2 * rows / 8 + 255) / 256), 256, 0, stream>>>(d.ds, ds_keys, d.df, df_keys, rows / 8);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa::gla_passes
