// gsa chunk's backward: both passes' gradients through GLA's chunk backward
// (kernels/common/chunk/variant.cuh), from the forward's states, decays and p left in the workspace
// (chunk_forward.cuh).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/common/chunk/launch.cuh"
#include "kernels/common/forked_stream.h"
#include "kernels/common/grid_stride.h"
#include "kernels/gsa/chunk_forward.cuh"
#include "kernels/gsa/chunk_groups.cuh"
#include "kernels/gsa/chunk_logits.cuh"
#include "kernels/gsa/chunk_workspace.h"
#include "kernels/gsa/pointers.cuh"
#include "profiles/nvtx_range.h"

namespace flabench::gsa {

// to += from, element by element: pass 1's share of ds and df added to pass 2's.
template <class T>
__global__ void add_into_kernel(T* to, const T* from, std::int64_t count) {
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < count;
       idx += std::int64_t(gridDim.x) * blockDim.x)
    to[idx] = from_float<T>(to_float(to[idx]) + to_float(from[idx]));
}

// One of gsa's passes as GLA's chunk backward: queries q and their output gradient do (HQ heads), keys s and
// `values` (H heads, `width` wide), gates f, the forward's states before every chunk [B*H, chunks, M, width]
// and the final state's incoming gradient [B*H, M, width]; the gradients of the keys, values, gates and
// initial state go to dk, dv, dg and dh0 (key/value heads). Grouped queries run over per-query-head copies
// (chunk_groups.cuh).
template <class T>
struct GlaPass {
  const T *q, *d_o, *values;
  // q in fp32 (p as the forward saved it, dz as the logit gradients made it): the reverse scan's operand is
  // made from these, so that q's rounding to a 16-bit T stays off the initial state's gradient (version 44)
  const float* q_fp32;
  int width;
  float* states;
  const float* d_ht;
  T *dk, *dv, *dg;
  float* dh0;
  // G = 1 only: dk and dg added to what they hold, once the work enqueued on `add_after` so far is done
  cudaStream_t add_after = nullptr;
  // Where set (dq_in_value_grads), the pass's forward output o = (q e^{seen}) S0 + A v goes here from its
  // value gradients, which build A anyway: pass 1's is dq. For fp16 inputs they then read q from q_fp32 (dz
  // balanced per row, as fp16's dq pass reads it) and multiply o's rows by output_row_scales (each row's
  // 2^-e).
  T* output = nullptr;
  const float* output_row_scales = nullptr;
};

// Whether pass 1's value gradients make dq (GlaPass::output) instead of a dq pass of its own (one kernel
// fewer, A built once: kernels/notes/gsa.md, versions 59 and 60): where they build A whole
// (value_grads_output_fits). gsa_dq_in_value_grads (gsa.h) for the tests.
inline bool dq_in_value_grads(const Problem& p, const DeviceLimits& device) {
  const chunk::Dims pass1{int(p.B), int(p.T), int(p.H * p.G), int(p.M), int(p.K), p.chunk_size, 1.f};
  return chunk::value_grads_output_fits(pass1, dtype_size(p.dtype), device);
}

// Grouped queries: the copies both passes read, made once (s, f, each chunk's summed decay and the scan's
// operand s e^{decay to the chunk's end}).
template <class T>
void shared_copies(const gsa::Pointers<T>& in, const Problem& p, std::byte* base, cudaStream_t stream) {
  const ChunkWorkspace w = workspace_of(p);
  using X = chunk::Prepared<T>;
  const int G = int(p.G), M = int(p.M), C = p.chunk_size;
  const std::int64_t tokens = p.B * p.T * p.H, heads = p.B * p.H, chunks = (p.T + C - 1) / C;
  repeat_heads(in.s, reinterpret_cast<T*>(base + w.slot_copies), tokens, G, M, stream);
  repeat_heads(in.f, reinterpret_cast<T*>(base + w.gate_copies), tokens, G, M, stream);
  repeat_heads(reinterpret_cast<const float*>(base + w.whole),
               reinterpret_cast<float*>(base + w.whole_copies), heads, G, chunks * M, stream);
  repeat_heads(reinterpret_cast<const X*>(base + w.slots_to_end),
               reinterpret_cast<X*>(base + w.slots_to_end_copies), heads, G, chunks * C * M, stream);
}

// The pass's reverse scan runs on `scan_stream` (ordered after `stream`'s work so far, and `stream`'s after
// it), its gradients inside the chunks on `stream`.
template <class T>
void run_pass(const GlaPass<T>& pass, const PassScratch& scratch, const gsa::Pointers<T>& in,
              const Problem& p, std::byte* base, cudaStream_t scan_stream, cudaStream_t stream) {
  const ChunkWorkspace w = workspace_of(p);
  const auto floats = [&](std::size_t at) { return reinterpret_cast<float*>(base + at); };
  const auto rows = [&](std::size_t at) { return reinterpret_cast<T*>(base + at); };
  const int G = int(p.G), M = int(p.M), C = p.chunk_size;
  const chunk::Dims d{int(p.B), int(p.T), int(p.H) * G, M, pass.width, C, 1.f};
  chunk::Workspace ws{};
  ws.dstates = floats(scratch.state_grads), ws.queries_from_start = base + scratch.queries_from_start;
  flabench::Pointers<T> roles{};
  roles.q = pass.q, roles.o = pass.output;
  flabench::GradPointers<T> grads{};
  grads.d_o = pass.d_o;  // no dq: gsa discards the gradient of GLA's queries (p, dz)
  if (G == 1) {
    roles.k = in.s, roles.v = pass.values, roles.g = in.f;
    ws.states = pass.states, ws.whole = floats(w.whole), ws.keys_to_end = base + w.slots_to_end;
    grads.d_ht = pass.d_ht, grads.dk = pass.dk, grads.dv = pass.dv, grads.dg = pass.dg, grads.dh0 = pass.dh0;
    grads.add_dk_dg = pass.add_after != nullptr;
  } else {
    // s, f and the decays were copied by shared_copies; the pass's own tensors here
    const std::int64_t tokens = p.B * p.T * p.H, heads = p.B * p.H, chunks = d.chunks();
    repeat_heads(pass.values, rows(w.row_copies), tokens, G, pass.width, stream);
    repeat_heads(pass.states, floats(w.state_copies), heads, G, chunks * M * pass.width, stream);
    repeat_heads(pass.d_ht, floats(w.final_grad_copies), heads, G, std::int64_t(M) * pass.width, stream,
                 /*first_only=*/true);
    roles.k = rows(w.slot_copies), roles.v = rows(w.row_copies), roles.g = rows(w.gate_copies);
    ws.states = floats(w.state_copies), ws.whole = floats(w.whole_copies),
    ws.keys_to_end = base + w.slots_to_end_copies;
    grads.d_ht = floats(w.final_grad_copies), grads.dk = rows(w.slot_grad_copies),
    grads.dv = rows(w.row_grad_copies);
    grads.dg = rows(w.gate_grad_copies), grads.dh0 = floats(w.initial_grad_copies);
  }
  if (scan_stream != stream) order_streams(stream, scan_stream);
  chunk::launch_state_grads<GlaForm, T, float>(roles, grads, d, ws, scan_stream, pass.q_fp32);
  if (scan_stream != stream) order_streams(scan_stream, stream);
  if (pass.output) {
    if constexpr (std::is_same_v<T, __half>)
      ws.queries_fp32 = pass.q_fp32, ws.output_row_scales = pass.output_row_scales;
    chunk::launch_chunk_grads<GlaForm, T, false, true>(roles, grads, d, ws, stream, pass.add_after);
  } else {
    chunk::launch_chunk_grads<GlaForm, T>(roles, grads, d, ws, stream, pass.add_after);
  }
  if (G > 1) {
    const std::int64_t tokens = p.B * p.T * p.H, heads = p.B * p.H;
    sum_parts(grads.dk, pass.dk, tokens, G, M, stream);
    sum_parts(grads.dg, pass.dg, tokens, G, M, stream);
    sum_parts(grads.dv, pass.dv, tokens, G, pass.width, stream);
    sum_parts(grads.dh0, pass.dh0, heads, G, std::int64_t(M) * pass.width, stream);
  }
}

// The backward:
//   1. logit grads  dz = scale p (dp - p . dp), dp = o's gradient through p, p as the forward saved it in
//                   fp32 (chunk_logits.cuh); with fp16 inputs also in fp32, and pass 1's dz and q (its do)
//                   balanced per token (balance_row)
//   2. pass 2       GLA with q = p, k = s, v = v, g = f, state Hv: dv, ds, df, dhv0 (its dq, dp, not made)
//   3. pass 1       as GLA with q = dz, k = s, v = k, g = f, state Hk^T and do = q: since
//                   sum_i dz_i . z_i = sum_i q_i . (Hk_i dz_i), that GLA's gradients of v, k, g and h0 are
//                   pass 1's dk, ds, df and dhk0^T (hkt's incoming gradient its final state's, transposed)
//   4. dq           GLA's output with q = dz, k = s, v = k over Hk^T's states: dq_i = Hk_i dz_i, made by pass
//                   1's value gradients from the scores they build (dq_in_value_grads), else by an output
//                   pass of its own; for fp16 inputs from the balanced dz in fp32, each row times its 2^-e
//                   before its rounding
// ds and df add the two passes' shares (in pass 1's key gradients, or afterwards: `fold` below).
template <class T>
void backward(const BackwardCall& call) {
  const Problem& p = call.problem;
  const gsa::Pointers<T> in = bind_inputs<T>(call.inputs);
  const gsa::GradPointers<T> g = bind_grads<T>(call);
  const ChunkWorkspace w = workspace_of(p);
  std::byte* const base = call.workspace.data();
  const auto floats = [&](std::size_t at) { return reinterpret_cast<float*>(base + at); };
  const auto rows = [&](std::size_t at) { return reinterpret_cast<T*>(base + at); };
  const int K = int(p.K), M = int(p.M);
  const chunk::Dims slots{int(p.B), int(p.T), int(p.H), M, int(p.V), p.chunk_size, float(p.scale), int(p.G)};
  const auto pass2 = [&](const PassScratch& scratch, cudaStream_t scan_stream, cudaStream_t stream) {
    const NvtxRange range("pass2_grads");
    run_pass(GlaPass<T>{rows(w.weights), g.d_o, in.v, floats(w.saved_weights), int(p.V),
                        floats(w.value_states), g.d_hvt, g.ds, g.dv, g.df, g.dhv0},
             scratch, in, p, base, scan_stream, stream);
  };
  // Pass 1's key gradients add its ds and df onto pass 2's once pass 2's side stream is done with them (one
  // rounding fewer, no adding passes) where adds_in_key_grads; else they are added afterwards.
  const bool fold = adds_in_key_grads(p), dq_with_value_grads = dq_in_value_grads(p, current_device_limits());
  const auto pass1 = [&](cudaStream_t scan_stream, cudaStream_t stream, cudaStream_t pass2_stream) {
    {
      const NvtxRange range("logit_grads");
      const std::size_t bytes = logits_shared_bytes(p, true);
      const bool four_fit = four_logit_grads_blocks_fit(bytes, current_device_limits());
      with_logit_tiles(p.chunk_size, M, [&](auto tiles) {
        constexpr int NT = decltype(tiles)::value;
        const auto launch = [&](auto kernel) {
          allow_shared_memory(kernel, bytes);
          kernel<<<dim3(unsigned(p.B * p.H * p.G), unsigned(slots.chunks())), kLogitsThreads, bytes,
                   stream>>>(LogitsArgs<T>{g.d_o, in.v, in.s, in.f, floats(w.value_states), int(p.V),
                                           floats(w.saved_weights), rows(w.logit_grads), nullptr, slots, in.q,
                                           K, rows(w.balanced_queries), floats(w.logit_grads_fp32),
                                           floats(w.row_scales)});
        };
        constexpr int kFour = logit_grads_blocks(NT, sizeof(T), true),
                      kElse = logit_grads_blocks(NT, sizeof(T), false);
        if constexpr (kFour != kElse) {
          if (four_fit) return launch(chunk_logit_grads_kernel<T, NT, kFour>);
        }
        launch(chunk_logit_grads_kernel<T, NT, kElse>);
      });
      FLA_CUDA_CHECK_LAUNCH();
    }
    {
      const NvtxRange range("pass1_grads");
      transpose_states(g.d_hkt, floats(w.key_initial), p.B * p.H, K, M, stream);
      const T* queries = std::is_same_v<T, __half> ? rows(w.balanced_queries) : in.q;
      const float* dz_fp32 = sizeof(T) == 2 ? floats(w.logit_grads_fp32) : nullptr;  // fp32's: T's
      run_pass(GlaPass<T>{rows(w.logit_grads), queries, in.k, dz_fp32, K, floats(w.key_states),
                          floats(w.key_initial), fold ? g.ds : rows(w.slot_grads), g.dk,
                          fold ? g.df : rows(w.gate_grads), floats(w.key_final),
                          fold ? pass2_stream : nullptr, dq_with_value_grads ? g.dq : nullptr,
                          std::is_same_v<T, __half> ? floats(w.row_scales) : nullptr},
               w.scratch(), in, p, base, scan_stream, stream);
      transpose_states(floats(w.key_final), g.dhk0, p.B * p.H, M, K, stream);
    }
    if (dq_with_value_grads) return;
    const NvtxRange range("query_grads");
    chunk::Dims keys = slots;
    keys.V = K, keys.scale = 1.f;
    flabench::Pointers<T> pass{};
    pass.q = rows(w.logit_grads), pass.k = in.s, pass.v = in.k, pass.g = in.f, pass.o = g.dq;
    if constexpr (std::is_same_v<T, __half>)
      chunk::launch_output<GlaForm, T, float>(pass, keys, floats(w.key_states), stream, nullptr, nullptr,
                                              floats(w.row_scales), floats(w.logit_grads_fp32));
    else
      chunk::launch_output<GlaForm, T>(pass, keys, floats(w.key_states), stream);
  };
  if (p.G == 1) {
    // Pass 2's backward reads only p and do: beside pass 1's (with its own scratch), where the reverse scans
    // leave SMs idle at few heads. Each pass's reverse scan (a chain over the chunks, latency-bound there)
    // runs on a high-priority side, so that its blocks start before the pending blocks of the wide launches
    // (the logit gradients beside pass 2's scan, pass 2's chunk gradients beside pass 1's): at
    // 1,24576,16,64 gsa's fwd+bwd 0.97-0.98x of each pass on one stream (kernels/notes/gsa.md, version 41).
    // Grouped queries' copies share one room, so there the passes take turns.
    const ForkedStream values(call.stream);
    const ForkedStream values_scan(call.stream, 0, SidePriority::high),
        keys_scan(call.stream, 1, SidePriority::high);
    pass2(w.side_scratch(), values_scan.side(), values.side());
    pass1(keys_scan.side(), call.stream, values.side());
  } else {
    shared_copies(in, p, base, call.stream);
    pass2(w.scratch(), call.stream, call.stream);
    pass1(call.stream, call.stream, nullptr);
  }
  if (fold) return;  // pass 1 added its shares
  const std::int64_t count = p.B * p.T * p.H * p.M;
  add_into_kernel<T>
      <<<grid_stride_blocks(count), kGridStrideThreads, 0, call.stream>>>(g.ds, rows(w.slot_grads), count);
  FLA_CUDA_CHECK_LAUNCH();
  add_into_kernel<T>
      <<<grid_stride_blocks(count), kGridStrideThreads, 0, call.stream>>>(g.df, rows(w.gate_grads), count);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa
