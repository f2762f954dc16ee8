// simple_gla's chunk variant: the chunk variant of the gated recurrences (kernels/common/chunk/), whose
// forward and backward in bf16 take the scalar-gate kernels of chunk_forward.cuh and chunk_backward.cuh
// where they apply (K = 64 or 128, V in 16-value strips, within the device's shared memory):
//   forward   on Hopper at C = 64 one kernel on wgmma (chunk_fused_forward.cu; it saves the states the
//             backward reads); else the factors, the scalar-gate scan (states saved), the output kernel;
//   backward  on Hopper at C = 64 with K and V each 64 or 128 (where the forward's one kernel runs both
//             ways), three passes of that kernel and a scan for dg, from the inputs alone
//             (simple_gla_fused_backward); else the factors of q, the scalar-gate scan in reverse (state
//             gradients; where the forward's one kernel runs, that kernel's reverse pass in its place), the
//             gradients kernel (on Hopper at C = 64 and K, V of 64 or 128 on wgmma: chunk_grads_wgmma.cu).
// A forward that saves for a backward the general kernels will run (the scalar one does not fit) is the
// general forward: that backward reads its prepared keys, decays, states and intra-chunk scores.
// fused_recurrent's fwd+bwd runs the backward from the states alone (simple_gla_chunked_backward).
#include <functional>
#include <stdexcept>

#include "kernels/common/chunk/variant.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/simple_gla/chunk_backward.cuh"
#include "kernels/simple_gla/chunk_forward.cuh"
#include "kernels/simple_gla/chunk_fused_forward.h"
#include "kernels/simple_gla/chunk_grads_wgmma.h"
#include "kernels/simple_gla/simple_gla.h"
#include "profiles/nvtx_range.h"

namespace flabench {
namespace {

using T = __nv_bfloat16;

bool scalar_shape(const Problem& p) {
  return p.dtype == DType::bf16 && (p.K == 64 || p.K == 128) && p.V % chunk::kScalarStrip == 0;
}
std::size_t shared_memory_optin() {
  return current_device_limits().shared_memory_per_block;
}
bool scalar_forward_runs(const Problem& p) {
  return scalar_shape(p) &&
         chunk::scalar_layout(p.chunk_size, int(p.K), int(p.V)).bytes() <= shared_memory_optin();
}
bool scalar_backward_runs(const Problem& p) {
  return scalar_forward_runs(p) &&
         chunk::ScalarGradLayout{p.chunk_size, int(p.K), int(p.V)}.bytes() <= shared_memory_optin();
}

// A kernel with `bytes` of dynamic shared memory (granted first where it needs more than the default).
template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, unsigned threads, std::size_t bytes, cudaStream_t stream,
            Args... args) {
  allow_shared_memory(kernel, bytes);
  kernel<<<grid, threads, bytes, stream>>>(args...);
  FLA_CUDA_CHECK_LAUNCH();
}

// The scan's factors for every chunk (keys: the forward's; else the backward's, of q).
template <int C, bool kKeys>
void launch_factors(const Pointers<T>& p, const chunk::Dims& d, float* factors, cudaStream_t stream) {
  const NvtxRange range(kKeys ? "decays" : "decays_seen");
  chunk::scalar_factors_kernel<C, kKeys>
      <<<dim3(unsigned(d.B * d.H), unsigned(d.chunks())), 32, 0, stream>>>(p, d, factors);
  FLA_CUDA_CHECK_LAUNCH();
}

// Where the fused forward splits the sequence (fused_plan.h, FusedSegments): the scalar scan's factors,
// then the segments' start states from the scan over k (launch.cuh, segment_starts).
const float* scalar_segment_starts(const ForwardCall& call, const chunk::FusedSegments& plan) {
  const chunk::Dims d = chunk::make_dims(call.problem);
  const Pointers<T> p = bind_inputs<T>(kSimpleGlaBinding, call.inputs);
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, call.problem);
  float* factors = chunk::scalar_factors(ws);
  launch_factors<chunk::kFusedChunk, true>(p, d, factors, call.stream);
  return chunk::segment_starts<T, true>({p.k, p.v, factors}, p.h0, d, ws.dstates, plan, call.stream);
}

void scalar_forward(const ForwardCall& call) {
  if (const DeviceLimits limits = current_device_limits();
      simple_gla_fused_forward_runs(call.problem, limits)) {
    const chunk::FusedSegments segments = chunk::fused_forward_segments(call.problem, limits.multiprocessors);
    const float* starts = segments.count > 1 ? scalar_segment_starts(call, segments) : nullptr;
    const NvtxRange range("fused");
    simple_gla_fused_forward(call, limits, segments, starts);
    return;
  }
  const chunk::Dims d = chunk::make_dims(call.problem);
  Pointers<T> p = bind_inputs<T>(kSimpleGlaBinding, call.inputs);
  p.o = call.outputs.at(kSimpleGlaBinding.o).as<T>();
  p.ht = call.outputs.at(kSimpleGlaBinding.ht).as<float>();
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, call.problem);
  const chunk::ScalarLayout layout = chunk::scalar_layout(d.C, d.K, d.V);
  with_one_of<16, 32, chunk::kMaxChunk>(d.C, [&](auto C) {
    {
      float* factors = chunk::scalar_factors(ws);
      launch_factors<C.value, true>(p, d, factors, call.stream);
      const NvtxRange range("states");
      chunk::launch_scan<T, true>({p.k, p.v, factors, p.h0, ws.states, p.ht, false}, d, call.stream);
    }
    const NvtxRange range("outputs");
    const dim3 grid(unsigned(d.B * d.H), unsigned(d.chunks()),
                    unsigned(d.V / (chunk::kScalarStrip * layout.W)));
    with_one_of<64, 128>(d.K, [&](auto K) {
      launch(chunk::scalar_chunk_output_kernel<C.value, K.value>, grid, unsigned(32 * layout.W),
             layout.bytes(), call.stream, p, d, static_cast<const float*>(ws.states), layout);
    });
  });
}

// The reverse scan's runs' room in the scalar backward's workspace `ws`, checked against the plan's needs.
float* runs_room(const chunk::Workspace& ws, const Problem& p, const chunk::StateGradRuns& plan) {
  const auto need =
      chunk::state_grad_runs_scratch(plan, int(p.B * p.H), int(chunk::chunk_count(p)), int(p.K), int(p.V));
  if (std::size_t(need.floats) > chunk::prepared_keys_room_floats(p))
    throw std::logic_error("simple_gla chunk: the reverse scan's runs outgrow the workspace's room");
  return chunk::prepared_keys_room(ws);
}

void scalar_backward(const BackwardCall& call) {
  if (const DeviceLimits limits = current_device_limits();
      simple_gla_fused_backward_runs(call.problem, limits)) {
    const NvtxRange range("fused_passes");
    simple_gla_fused_backward(call, limits);
    return;
  }
  const chunk::Dims d = chunk::make_dims(call.problem);
  const Pointers<T> p = bind_inputs<T>(kSimpleGlaBinding, call.inputs);
  const GradPointers<T> g = bind_grads<T>(kSimpleGlaBinding, call.grad_outputs, call.grads);
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, call.problem);
  // the general backward's prepared queries are not made: their room holds the factors
  auto* factors = reinterpret_cast<float*>(ws.queries_from_start);
  const chunk::ScalarGradLayout layout{d.C, d.K, d.V};
  const DeviceLimits limits = current_device_limits();
  with_one_of<16, 32, chunk::kMaxChunk>(d.C, [&](auto C) {
    const bool grads_wgmma = simple_gla_grads_wgmma_runs(call.problem, limits);
    chunk::StateGradStarts runs;  // where the reverse scan runs in runs, what makes its gradients whole
    if (simple_gla_fused_kernel_fills(call.problem, limits)) {
      const NvtxRange range("state_grads_fused");
      simple_gla_fused_state_grads(call, ws.dstates, limits);
    } else {
      launch_factors<C.value, false>(p, d, factors, call.stream);
      const chunk::Scan<T> scan{p.q, g.d_o, factors, g.d_ht, ws.dstates, g.dh0, true};
      // in runs where heads are few (the wgmma gradients kernel adds the runs' starts)
      const chunk::StateGradRuns plan =
          grads_wgmma ? chunk::plan_state_grad_runs(chunk::scan_blocks(d.B * d.H, d.K, d.V), d.chunks(),
                                                    limits.multiprocessors)
                      : chunk::StateGradRuns{};
      const NvtxRange range("state_grads");
      if (plan.runs > 1)
        runs = chunk::state_grads_in_runs<T, true>(scan, d, runs_room(ws, call.problem, plan), plan,
                                                   call.stream);
      else
        chunk::launch_scan<T, true>(scan, d, call.stream);
    }
    const NvtxRange range("grads");
    if (grads_wgmma) {
      simple_gla_grads_wgmma(call, static_cast<const float*>(ws.states),
                             static_cast<const float*>(ws.dstates), runs, limits);
      return;
    }
    with_one_of<64, 128>(d.K, [&](auto K) {
      launch(chunk::scalar_chunk_grads_kernel<C.value, K.value>,
             dim3(unsigned(d.B * d.H), unsigned(d.chunks())), 32 * chunk::kScalarGradWarps, layout.bytes(),
             call.stream, p, g, d, static_cast<const float*>(ws.states),
             static_cast<const float*>(ws.dstates), layout);
    });
  });
}

// The scalar gate's backward where it runs, else `general`.
std::function<void(const BackwardCall&)> scalar_backward_or(
    std::function<void(const BackwardCall&)> general) {
  return [general](const BackwardCall& call) {
    if (scalar_backward_runs(call.problem))
      scalar_backward(call);
    else
      general(call);
  };
}

}  // namespace

Variant simple_gla_chunk_variant() {
  Variant variant = chunk::make_variant<SimpleGlaForm>("simple_gla", kSimpleGlaBinding);
  variant.description +=
      "; in bf16 at K = 64, 128 kernels of its scalar gate (decays on accumulators and registers), on an "
      "H100/H200 at C = 64 its forward one kernel on wgmma";
  variant.forward = [general = variant.forward](const ForwardCall& call) {
    if (scalar_forward_runs(call.problem) && (!call.save_for_backward || scalar_backward_runs(call.problem)))
      scalar_forward(call);
    else
      general(call);
  };
  variant.backward = scalar_backward_or(variant.backward);
  return variant;
}

// The general backward from the states, or the scalar gate's (which reads no more of the forward).
ChunkedBackward simple_gla_chunked_backward() {
  ChunkedBackward chunked = chunk::chunked_backward<SimpleGlaForm>(kSimpleGlaBinding);
  chunked.backward = scalar_backward_or(chunked.backward);
  // the scalar gate's backward reads nothing the general one's prepare makes
  chunked.prepare = [general = chunked.prepare](const ForwardCall& call) {
    if (!scalar_backward_runs(call.problem)) general(call);
  };
  return chunked;
}

}  // namespace flabench
