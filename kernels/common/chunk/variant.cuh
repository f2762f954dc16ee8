// The chunk variant of the gated recurrences without a low-rank term (gla, simple_gla, rwkv6): the
// chunkwise-parallel form of kernels/notes/chunk.md, checked on the host by tests/kernels/chunk_form.h.
// Forward: the scan of kernels/common/chunk/scan.cuh (the states) and kernels/common/chunk/forward.cuh (the
// outputs); backward:
// the scan of kernels/common/chunk/scan.cuh (the state gradients) and kernels/common/chunk/chunk_grads.cuh
// (the gradients inside the chunks).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/common/chunk/launch.cuh"
#include "kernels/common/chunk/prepared_fused_forward.h"
#include "kernels/common/chunked_backward.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/format.h"
#include "kernels/variant.h"
#include "profiles/nvtx_range.h"

namespace flabench::chunk {

// Whether the chunk forward of `p` takes the prepared path on a device of `limits` (bf16 on Hopper: the
// operands pass, then the state and output kernel), whose operands pass leaves a backward its reverse scan's
// operand.
template <class Form, class T>
bool takes_prepared_path(const Problem& p, const DeviceLimits& limits) {
  return std::is_same_v<T, __nv_bfloat16> && prepared_fused_forward_runs(Form::value, p, limits);
}

template <class Form, class T>
void forward(const RecurrenceBinding& binding, const ForwardCall& call) {
  const Problem& p = call.problem;
  const Dims d = make_dims(p);
  Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  pointers.o = call.outputs.at(binding.o).as<T>();
  pointers.ht = call.outputs.at(binding.ht).as<float>();
  const Workspace ws = carve_workspace(call.workspace, p);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    // on Hopper, the operands that depend on the decays alone made once a chunk by one wide pass, then the
    // states and outputs in one kernel (prepared_fused_forward.cu), saving what a backward reads. At K = 64
    // a forward alone took version 72's one kernel until the operands pass was version 92's, then measured
    // 0.79-0.93x of it (kernels/notes/chunk.md, version 94)
    if (const DeviceLimits limits = current_device_limits(); takes_prepared_path<Form, T>(p, limits)) {
      {
        const NvtxRange range("operands");
        launch_operands<Form, T>(pointers, d, ws, call.save_for_backward, call.stream);
      }
      // where the sequence splits, the segments' start states from the scan over the prepared keys
      const FusedSegments segments = fused_forward_segments(p, limits.multiprocessors);
      const float* starts = segments.count > 1
                                ? segment_starts<T>({reinterpret_cast<const Prepared<T>*>(ws.keys_to_end),
                                                     pointers.v, ws.whole},
                                                    pointers.h0, d, ws.dstates, segments, call.stream)
                                : nullptr;
      const NvtxRange range("fused");
      prepared_fused_forward(binding, call, limits, segments, starts);
      return;
    }
  }
  forward_states<Form>(pointers, d, ws, call.stream);
  const NvtxRange range("outputs");
  launch_output<Form, T>(pointers, d, ws.states, call.stream, call.save_for_backward ? ws.scores : nullptr,
                         ws.bonus);
}

template <class Form, class T>
void backward(const RecurrenceBinding& binding, const BackwardCall& call) {
  const Problem& p = call.problem;
  launch_backward<Form, T, /*kSavedScores=*/true>(
      bind_inputs<T>(binding, call.inputs), bind_grads<T>(binding, call.grad_outputs, call.grads),
      make_dims(p), carve_workspace(call.workspace, p), call.stream,
      takes_prepared_path<Form, T>(p, current_device_limits()));
}

inline std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  if (p.chunk_size % kSubChunk != 0 || p.chunk_size > kMaxChunk)
    return format("chunk takes chunk sizes 16, 32 and 64, not %d", p.chunk_size);
  if (p.K % 16 != 0)
    return format("chunk takes key dims in multiples of 16 (the tensor cores' k step), not %lld",
                  static_cast<long long>(p.K));
  if (p.V % 8 != 0)
    return format("chunk takes value dims in multiples of 8 (16-byte loads), not %lld",
                  static_cast<long long>(p.V));
  if (auto why = index_limits(p.B, p.H, std::max(p.K, p.V))) return why;
  const std::size_t input_bytes = dtype_size(p.dtype);
  std::size_t bytes = std::max(prepare_shared_bytes(p.chunk_size, int(p.K)),
                               output_shared_bytes(p.chunk_size, int(p.K), 64, input_bytes));
  if (mode == Mode::fwdbwd)
    bytes = std::max({bytes,
                      value_grads_shared_bytes(value_grads_scores(true, p.chunk_size, int(p.K)), p.chunk_size,
                                               int(p.K), input_bytes),
                      key_grads_shared_bytes(p.chunk_size, input_bytes)});
  if (bytes > device.shared_memory_per_block)
    return format(
        "chunk stages a %d-token chunk of K = %lld in %zu KiB of shared memory, the device allows %zu KiB",
        p.chunk_size, static_cast<long long>(p.K), bytes / 1024, device.shared_memory_per_block / 1024);
  return std::nullopt;
}

// The backward's first work where the workspace holds nothing of the forward but the states before the
// chunks (another variant's forward saved them: ChunkedBackward): from the inputs alone, the forward's
// prepared keys (their rounded bf16 part, what the value gradients read) and chunk decays made again, and the
// reverse scan's operand.
template <class Form, class T>
void prepare_from_inputs(const RecurrenceBinding& binding, const ForwardCall& call) {
  const Problem& p = call.problem;
  const Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  const Dims d = make_dims(p);
  const Workspace ws = carve_workspace(call.workspace, p);
  {
    const NvtxRange range("decays");
    launch_prepare<Form, T, Operand::keys_to_end>(pointers, d, ws, call.stream, SecondPart::skipped);
  }
  const NvtxRange range("decays_seen");
  launch_prepare<Form, T, Operand::queries_from_start>(pointers, d, ws, call.stream);
}

// The rest, after prepare_from_inputs: the reverse scan, then the gradients inside the chunks, the
// intra-chunk scores rebuilt by the value gradients.
template <class Form, class T>
void backward_from_states(const RecurrenceBinding& binding, const BackwardCall& call) {
  const Problem& p = call.problem;
  launch_backward<Form, T>(bind_inputs<T>(binding, call.inputs),
                           bind_grads<T>(binding, call.grad_outputs, call.grads), make_dims(p),
                           carve_workspace(call.workspace, p), call.stream, /*queries_made=*/true);
}

// prepare_from_inputs and backward_from_states for another variant's fwd+bwd: in chunks of kMaxChunk tokens
// (the chunk size of the chunk variant's fastest fwd+bwd at every peer shape, kernels/notes/chunk.md), where
// the chunk variant runs that chunk size and the value gradients' room for rebuilding A fits.
template <class Form>
ChunkedBackward chunked_backward(const RecurrenceBinding& binding) {
  ChunkedBackward chunked;
  chunked.chunk = kMaxChunk;
  chunked.runs = [](const Problem& p, const DeviceLimits& device) {
    Problem in_chunks = p;
    in_chunks.chunk_size = kMaxChunk;
    const int C = kMaxChunk, K = int(p.K);
    return !limits(in_chunks, Mode::fwdbwd, device) &&
           value_grads_shared_bytes(value_grads_scores(false, C, K), C, K, dtype_size(p.dtype)) <=
               device.shared_memory_per_block;
  };
  chunked.workspace_bytes = workspace_bytes;
  chunked.prepare = by_dtype<ForwardCall>([binding](auto tag, const ForwardCall& call) {
    prepare_from_inputs<Form, decltype(tag)>(binding, call);
  });
  chunked.backward = by_dtype<BackwardCall>([binding](auto tag, const BackwardCall& call) {
    backward_from_states<Form, decltype(tag)>(binding, call);
  });
  return chunked;
}

// The chunk variant of an op whose math is `binding` (Form::value == binding.form).
template <class Form>
Variant make_variant(const std::string& op, const RecurrenceBinding& binding) {
  Variant variant;
  variant.op = op;
  variant.name = "chunk";
  variant.description =
      "chunkwise: a scan over the chunks for the states, then every chunk's outputs in parallel, on the "
      "tensor cores (fp32 in 3xTF32, held to fp32's thresholds); the backward likewise (a reverse scan, then "
      "the gradients per chunk)";
  variant.backend = Backend::cuda;
  variant.support.chunk_sizes = {16, 32, 64};
  variant.support.default_chunk_size = 64;
  variant.support.limits = limits;
  // the forward's states and intermediates whatever follows it
  variant.workspace_bytes = [](const Problem& p, Mode, const DeviceLimits&) { return workspace_bytes(p); };
  variant.forward = by_dtype<ForwardCall>(
      [binding](auto tag, const ForwardCall& call) { forward<Form, decltype(tag)>(binding, call); });
  variant.backward = by_dtype<BackwardCall>(
      [binding](auto tag, const BackwardCall& call) { backward<Form, decltype(tag)>(binding, call); });
  return variant;
}

}  // namespace flabench::chunk
