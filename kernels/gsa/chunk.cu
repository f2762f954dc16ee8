// gsa's chunk variant: its forward (chunk_forward.cuh) and backward (chunk_backward.cuh) on GLA's chunk
// kernels, what it supports, and its registration.
#include <algorithm>
#include <optional>
#include <string>

#include "kernels/common/format.h"
#include "kernels/gsa/chunk_backward.cuh"
#include "kernels/gsa/chunk_forward.cuh"
#include "kernels/gsa/gsa.h"

namespace flabench {
namespace gsa {

std::size_t logits_shared_bytes(const Problem& p, bool grads) {
  const int balanced_queries = grads && p.dtype == DType::fp16 ? int(p.K) : 0;
  return sizeof(float) * logits_floats(p.chunk_size, int(grads ? p.V : p.K), int(p.M), grads,
                                       int(dtype_size(p.dtype)), balanced_queries);
}

namespace {

std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  if (p.K % 16 != 0 || p.M % 16 != 0 || p.M > kLogitsMaxSlots)
    return format(
        "chunk takes K and M in multiples of 16 (the tensor cores' k step) and M up to %d (two warps' tiles "
        "of logits), not K=%lld, M=%lld",
        kLogitsMaxSlots, static_cast<long long>(p.K), static_cast<long long>(p.M));
  if (p.V % 8 != 0)
    return format("chunk takes value dims in multiples of 8 (16-byte loads), not %lld",
                  static_cast<long long>(p.V));
  // q and o hold H G heads; the scans run over H of them (counting H G is on the safe side)
  if (auto why = chunk::index_limits(p.B, p.H * p.G, std::max({p.K, p.V, p.M}))) return why;
  const std::size_t input_bytes = dtype_size(p.dtype);
  std::size_t bytes = std::max({chunk::prepare_shared_bytes(p.chunk_size, int(p.M)),
                                chunk::output_shared_bytes(p.chunk_size, int(p.M), 64, input_bytes),
                                logits_shared_bytes(p, false)});
  if (mode == Mode::fwdbwd) {
    bytes =
        std::max({bytes, logits_shared_bytes(p, true),
                  chunk::value_grads_shared_bytes(chunk::value_grads_scores(false, p.chunk_size, int(p.M)),
                                                  p.chunk_size, int(p.M), input_bytes),
                  chunk::key_grads_shared_bytes(p.chunk_size, input_bytes)});
  }
  if (bytes > device.shared_memory_per_block)
    return format(
        "chunk stages a %d-token chunk of K = %lld, M = %lld in %zu KiB of shared memory, the device allows "
        "%zu KiB",
        p.chunk_size, static_cast<long long>(p.K), static_cast<long long>(p.M), bytes / 1024,
        device.shared_memory_per_block / 1024);
  return std::nullopt;
}

constexpr int kChunkedBackwardTokens = 32;  // the chunk size of gsa chunk's fastest fwd+bwd (gsa.md)

}  // namespace
}  // namespace gsa

Variant gsa_chunk_variant() {
  Variant variant;
  variant.op = "gsa";
  variant.name = "chunk";
  variant.description =
      "chunkwise: GLA's chunk scan for both states (the slots as its key channels), pass 1's logits and "
      "softmax per chunk, GLA's output pass for pass 2; the backward as GLA's for both passes (pass 1 as GLA "
      "with dz as its queries); tensor cores (fp32 in 3xTF32, held to fp32's thresholds)";
  variant.backend = Backend::cuda;
  variant.support.chunk_sizes = {16, 32, 64};
  variant.support.default_chunk_size = 32;  // the fastest at 4 of the 5 peer shapes (kernels/notes/gsa.md)
  variant.support.limits = gsa::limits;
  variant.workspace_bytes = [](const Problem& p, Mode, const DeviceLimits&) {
    return gsa::workspace_of(p).total;
  };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { gsa::forward<decltype(tag)>(call); });
  variant.backward =
      by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) { gsa::backward<decltype(tag)>(call); });
  return variant;
}

bool gsa_dq_in_value_grads(const Problem& p, const DeviceLimits& device) {
  return gsa::dq_in_value_grads(p, device);
}

ChunkedBackward gsa_chunked_backward() {
  ChunkedBackward chunked;
  chunked.chunk = gsa::kChunkedBackwardTokens;
  chunked.runs = [](const Problem& p, const DeviceLimits& device) {
    Problem in_chunks = p;
    in_chunks.chunk_size = gsa::kChunkedBackwardTokens;
    return !gsa::limits(in_chunks, Mode::fwdbwd, device);
  };
  chunked.workspace_bytes = [](const Problem& p) { return gsa::workspace_of(p).total; };
  // the decays made again (the slots' operand without bf16's second part, which only a forward scan reads)
  chunked.prepare = by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) {
    using T = decltype(tag);
    gsa::prepare_decays<T>(gsa::bind_inputs<T>(call.inputs), call.problem, call.workspace.data(), call.stream,
                           chunk::SecondPart::skipped);
  });
  chunked.backward =
      by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) { gsa::backward<decltype(tag)>(call); });
  return chunked;
}

}  // namespace flabench
