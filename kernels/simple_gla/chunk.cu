// simple_gla's chunk variant: the chunk variant of the gated recurrences (kernels/common/chunk/), whose
// forward in bf16 takes the scalar-gate kernels of chunk_forward.cuh where they apply: for inference the
// factors, the scalar-gate scan and the output kernel; a forward that saves for the backward makes the
// general prepared keys, decays and states the backward reads, then the same output kernel.
#include "kernels/common/chunk/variant.cuh"
#include "kernels/common/constant_dispatch.h"
#include "kernels/simple_gla/chunk_forward.cuh"
#include "kernels/simple_gla/simple_gla.h"
#include "profiles/nvtx_range.h"

namespace flabench {
namespace {

// Whether the scalar-gate forward takes the call: bf16, K = 64 or 128, V in whole 16-value strips, and its
// shared memory on this device.
bool scalar_forward_runs(const ForwardCall& call) {
  const Problem& p = call.problem;
  if (p.dtype != DType::bf16 || (p.K != 64 && p.K != 128) || p.V % chunk::kScalarStrip != 0) return false;
  const auto optin = std::size_t(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  return chunk::scalar_layout(p.chunk_size, int(p.K), int(p.V)).bytes() <= optin;
}

void scalar_forward(const ForwardCall& call) {
  using T = __nv_bfloat16;
  const chunk::Dims d = chunk::make_dims(call.problem);
  Pointers<T> p = bind_inputs<T>(kSimpleGlaBinding, call.inputs);
  p.o = call.outputs.at(kSimpleGlaBinding.o).as<T>();
  p.ht = call.outputs.at(kSimpleGlaBinding.ht).as<float>();
  const chunk::Workspace ws = chunk::carve_workspace(call.workspace, call.problem);
  float* factors = chunk::scalar_factors(ws);
  const chunk::ScalarLayout layout = chunk::scalar_layout(d.C, d.K, d.V);
  with_one_of<16, 32, chunk::kMaxChunk>(d.C, [&](auto C) {
    if (call.save_for_backward) {  // the states and prepared keys the general backward reads
      chunk::forward_states<SimpleGlaForm>(p, d, ws, call.stream);
    } else {
      {
        const NvtxRange range("decays");
        chunk::scalar_factors_kernel<C.value>
            <<<dim3(unsigned(d.B * d.H), unsigned(d.chunks())), 32, 0, call.stream>>>(p, d, factors);
        FLA_CUDA_CHECK_LAUNCH();
      }
      const NvtxRange range("states");
      chunk::launch_scan<T, true>({p.k, p.v, factors, p.h0, ws.states, p.ht, false}, d, call.stream);
    }
    const NvtxRange range("outputs");
    with_one_of<64, 128>(d.K, [&](auto K) {
      const auto kernel = chunk::scalar_chunk_output_kernel<C.value, K.value>;
      allow_shared_memory(kernel, layout.bytes());
      kernel<<<dim3(unsigned(d.B * d.H), unsigned(d.chunks()),
                    unsigned(d.V / (chunk::kScalarStrip * layout.W))),
               unsigned(32 * layout.W), layout.bytes(), call.stream>>>(p, d, ws.states, layout);
      FLA_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace

Variant simple_gla_chunk_variant() {
  Variant variant = chunk::make_variant<SimpleGlaForm>("simple_gla", kSimpleGlaBinding);
  variant.description += "; bf16 forwards at K = 64, 128 with the scalar gate on accumulators and registers";
  variant.forward = [general = variant.forward](const ForwardCall& call) {
    if (scalar_forward_runs(call))
      scalar_forward(call);
    else
      general(call);
  };
  return variant;
}

}  // namespace flabench
