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

#include "kernels/common/chunk/chunk_grads.cuh"
#include "kernels/common/chunk/launch.cuh"
#include "kernels/common/cuda_check.h"
#include "kernels/common/format.h"
#include "kernels/variant.h"
#include "profiles/nvtx_range.h"

namespace flabench::chunk {

inline std::size_t value_grads_shared_bytes(int C, int K, std::size_t input_bytes) {
  return sizeof(float) * value_grads_floats(C, K, int(input_bytes));
}
inline std::size_t key_grads_shared_bytes(int C, std::size_t input_bytes) {
  return sizeof(float) * key_grads_floats(C, int(input_bytes));
}

// The scan's operand for every chunk, then the scan (kernels/common/chunk/scan.cuh).
template <class Form, class T, Operand kind>
void prepare_and_scan(const Pointers<T>& pointers, const Dims& d, const Workspace& ws, const Scan<T>& scan,
                      cudaStream_t stream) {
  {
    const NvtxRange range(kind == Operand::keys_to_end ? "decays" : "decays_seen");
    launch_prepare<Form, T, kind>(pointers, d, ws, stream);
  }
  const NvtxRange range(kind == Operand::keys_to_end ? "states" : "state_grads");
  launch_scan(scan, d, stream);
}

template <class Form, class T>
void forward(const RecurrenceBinding& binding, const ForwardCall& call) {
  const Problem& p = call.problem;
  const Dims d = make_dims(p);
  Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  pointers.o = call.outputs.at(binding.o).as<T>();
  pointers.ht = call.outputs.at(binding.ht).as<float>();
  const Workspace ws = carve_workspace(call.workspace, p);
  prepare_and_scan<Form, T, Operand::keys_to_end>(
      pointers, d, ws,
      {reinterpret_cast<const Prepared<T>*>(ws.keys_to_end), pointers.v, ws.whole, pointers.h0, ws.states,
       pointers.ht, false},
      call.stream);
  const NvtxRange range("outputs");
  launch_output<Form, T>(pointers, d, ws.states, call.stream);
}

// The backward over any tensors in GLA's roles (gsa runs its two passes through it): the reverse scan for the
// state gradients, then the gradients inside every chunk; the forward's states, whole decays and keys_to_end
// operand are read from ws.
template <class Form, class T>
void launch_backward(const Pointers<T>& pointers, const GradPointers<T>& grads, const Dims& d,
                     const Workspace& ws, cudaStream_t stream) {
  prepare_and_scan<Form, T, Operand::queries_from_start>(
      pointers, d, ws,
      {reinterpret_cast<const Prepared<T>*>(ws.queries_from_start), grads.d_o, ws.whole, grads.d_ht,
       ws.dstates, grads.dh0, true},
      stream);
  const dim3 chunks(unsigned(d.B * d.H), unsigned(d.chunks()));
  const std::size_t value_bytes = value_grads_shared_bytes(d.C, d.K, sizeof(T)),
                    key_bytes = key_grads_shared_bytes(d.C, sizeof(T));
  const unsigned tiles = unsigned(key_tiles(d.K));
  {
    const NvtxRange range("value_grads");
    allow_shared_memory(chunk_value_grads_kernel<Form, T>, value_bytes);
    chunk_value_grads_kernel<Form, T>
        <<<dim3(chunks.x, chunks.y, unsigned((d.V + kGradValues - 1) / kGradValues)),
           unsigned(value_grads_threads(d.C, d.K)), value_bytes, stream>>>(pointers, grads, d, ws);
    FLA_CUDA_CHECK_LAUNCH();
  }
  {
    const NvtxRange range("key_grads");
    allow_shared_memory(chunk_key_grads_kernel<Form, T>, key_bytes);
    chunk_key_grads_kernel<Form, T>
        <<<dim3(chunks.x, chunks.y, tiles), kKeyGradThreads, key_bytes, stream>>>(pointers, grads, d, ws);
    FLA_CUDA_CHECK_LAUNCH();
  }
  if constexpr (Form::value.gate == GateKind::per_head) {
    const NvtxRange range("sum_key_tiles");
    const std::int64_t rows = std::int64_t(d.B) * d.T * d.H;
    chunk_sum_key_tiles_kernel<T>
        <<<unsigned((rows + 255) / 256), 256, 0, stream>>>(ws.dg_partial, grads.dg, d, int(tiles));
    FLA_CUDA_CHECK_LAUNCH();
  }
  if constexpr (Form::value.bonus) {
    const NvtxRange range("sum_bonus_grad");
    const int count = d.H * d.K;
    sum_bonus_grad_kernel<T>
        <<<(count + 255) / 256, 256, 0, stream>>>(ws.du_partial, grads.du, d.B * d.chunks(), d.H, d.K);
    FLA_CUDA_CHECK_LAUNCH();
  }
}

template <class Form, class T>
void backward(const RecurrenceBinding& binding, const BackwardCall& call) {
  const Problem& p = call.problem;
  launch_backward<Form, T>(bind_inputs<T>(binding, call.inputs),
                           bind_grads<T>(binding, call.grad_outputs, call.grads), make_dims(p),
                           carve_workspace(call.workspace, p), call.stream);
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
  const std::size_t input_bytes = dtype_size(p.dtype);
  std::size_t bytes = std::max(prepare_shared_bytes(p.chunk_size, int(p.K)),
                               output_shared_bytes(p.chunk_size, int(p.K), 64, input_bytes));
  if (mode == Mode::fwdbwd)
    bytes = std::max({bytes, value_grads_shared_bytes(p.chunk_size, int(p.K), input_bytes),
                      key_grads_shared_bytes(p.chunk_size, input_bytes)});
  if (bytes > device.shared_memory_per_block)
    return format(
        "chunk stages a %d-token chunk of K = %lld in %zu KiB of shared memory, the device allows %zu KiB",
        p.chunk_size, static_cast<long long>(p.K), bytes / 1024, device.shared_memory_per_block / 1024);
  return std::nullopt;
}

// The chunk variant of an op whose math is `binding` (Form::value == binding.form).
template <class Form>
Variant make_variant(const std::string& op, const RecurrenceBinding& binding) {
  Variant variant;
  variant.op = op;
  variant.name = "chunk";
  variant.description =
      "chunkwise: a scan over the chunks for the states, then every chunk's outputs in parallel, on the "
      "tensor cores for bf16/fp16; the backward likewise (a reverse scan, then the gradients per chunk)";
  variant.backend = Backend::cuda;
  variant.support.chunk_sizes = {16, 32, 64};
  variant.support.default_chunk_size = 64;
  variant.support.limits = limits;
  variant.workspace_bytes = workspace_bytes;
  variant.forward = by_dtype<ForwardCall>(
      [binding](auto tag, const ForwardCall& call) { forward<Form, decltype(tag)>(binding, call); });
  variant.backward = by_dtype<BackwardCall>(
      [binding](auto tag, const BackwardCall& call) { backward<Form, decltype(tag)>(binding, call); });
  return variant;
}

}  // namespace flabench::chunk
