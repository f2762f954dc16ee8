// rwkv7's fused_recurrent: the scan of kernels/common/fused_recurrent, forward and backward, but for the
// backward in chunk form where that is the faster (backward_in_chunks.h): then the forward of a fwd+bwd saves
// into the chunk variant's workspace, which holds the scan's own at scan_workspace_offset (the checkpoints at
// the chunks' starts only).
#include "kernels/common/fused_recurrent/variant.cuh"
#include "kernels/rwkv7/backward_in_chunks.h"
#include "kernels/rwkv7/rwkv7.h"

namespace flabench {
namespace rwkv7 {
namespace {

Variant scan_variant() {
  return fused::make_variant<Rwkv7Form>("rwkv7", kRwkv7Binding);
}

}  // namespace

std::function<void(const BackwardCall&)> scan_backward() {
  return scan_variant().backward;
}

}  // namespace rwkv7

Variant rwkv7_fused_recurrent_variant() {
  Variant variant = rwkv7::scan_variant();
  const Variant scan = variant;
  variant.description +=
      "; rwkv7's backward for 16-bit inputs in chunk form on the scan's checkpoints and a^T S_{t-1} (the "
      "chunk variant's per-chunk matrices recomputed, its reverse scan and per-chunk gradients, in chunks of "
      "32) where that variant's chunked backward runs";
  variant.workspace_bytes = [scan](const Problem& p, Mode mode, const DeviceLimits& device) {
    if (mode == Mode::fwdbwd && rwkv7::backward_in_chunks(p, device))
      return rwkv7::backward_in_chunks_workspace_bytes(p, device);
    return scan.workspace_bytes(p, mode, device);
  };
  variant.forward = [scan](const ForwardCall& call) {
    const DeviceLimits device = current_device_limits();
    if (!call.save_for_backward || !rwkv7::backward_in_chunks(call.problem, device))
      return scan.forward(call);
    // the checkpoints at the chunks' starts only: the chunked backward reads no others
    constexpr int kEvery = rwkv7::kBackwardChunk / fused::kChunk;
    static_assert(rwkv7::kBackwardChunk % fused::kChunk == 0 && (kEvery & (kEvery - 1)) == 0,
                  "a chunk is a power of two of checkpoint intervals (Geometry::checkpoint_every)");
    static const auto save_chunk_starts = by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) {
      fused::forward<Rwkv7Form, decltype(tag)>(kRwkv7Binding, call, kEvery);
    });
    save_chunk_starts({call.problem, call.inputs, call.outputs,
                       call.workspace.subspan(rwkv7::scan_workspace_offset(call.problem, device)),
                       call.stream, true});
  };
  variant.backward = [scan](const BackwardCall& call) {
    if (rwkv7::backward_in_chunks(call.problem, current_device_limits()))
      return rwkv7::run_backward_in_chunks(call);
    scan.backward(call);
  };
  return variant;
}

}  // namespace flabench
