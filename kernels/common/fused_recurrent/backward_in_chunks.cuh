// fused_recurrent's backward in chunk form (gla, simple_gla, rwkv6; rwkv7 has its own,
// kernels/rwkv7/backward_in_chunks.h): where the op's chunk variant can run its backward from the states
// before its chunks alone (ChunkedBackward), the forward of a fwd+bwd is the scan, saving only the
// checkpoints at those chunks' starts, packed as the chunk variant lays its states out, and the backward is
// the chunk variant's: the state gradients by a reverse scan over chunks, then every chunk's gradients. The
// method is checkpoints with recomputation, the recomputation in chunk form (kernels/notes/
// fused_recurrent.md, version 63).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/common/chunked_backward.h"
#include "kernels/common/forked_stream.h"
#include "kernels/common/fused_recurrent/variant.cuh"

namespace flabench::fused {

// Where the chunk variant takes the shape, in every dtype: with 16-bit inputs its backward ran 0.38-0.76x the
// scan's at every peer shape; fp32's, on the CUDA cores, had lost at 2^20 state elements (B H K V: 1.04-1.08x
// at 4,4096,16,128, whose scan fills the GPU; kernels/notes/fused_recurrent.md, version 63) until its
// products went to the tensor cores in 3xTF32 (kernels/notes/chunk.md, version 53): 0.86-0.92x there, and
// "same" or faster at every other peer shape (version 78).
template <class Form>
Variant with_backward_in_chunks(Variant variant, const RecurrenceBinding& binding, ChunkedBackward chunked) {
  static_assert(!Form::value.low_rank, "rwkv7's backward in chunk form reads a^T S too: its own");
  const Variant scan = variant;
  const auto in_chunks = [chunk = chunked.chunk](const Problem& p) {
    Problem q = p;
    q.chunk_size = chunk;
    return q;
  };
  variant.description += "; the backward the chunk variant's (in chunks of " + std::to_string(chunked.chunk) +
                         ", from the scan's checkpoints at the chunks' starts) where that variant takes the "
                         "shape";
  variant.workspace_bytes = [scan, chunked, in_chunks](const Problem& p, Mode mode,
                                                       const DeviceLimits& device) {
    if (mode == Mode::fwdbwd && chunked.runs(p, device)) return chunked.workspace_bytes(in_chunks(p));
    return scan.workspace_bytes(p, mode, device);
  };
  const int every = chunked.chunk / kChunk;
  if (chunked.chunk % kChunk != 0 || (every & (every - 1)) != 0)
    throw std::logic_error("fused_recurrent: a chunk must be a power of two of checkpoint intervals");
  const auto save_chunk_starts = by_dtype<ForwardCall>([binding, every](auto tag, const ForwardCall& call) {
    forward<Form, decltype(tag)>(binding, call, every, /*packed=*/true);
  });
  // The chunked backward's first work reads the inputs alone (ChunkedBackward::prepare): it runs on a side
  // stream beside the scan, whose blocks (launched first) leave SMs and issue slots to spare while each
  // waits on its chain of tokens (kernels/notes/fused_recurrent.md, version 93).
  variant.forward = [scan, chunked, in_chunks, save_chunk_starts](const ForwardCall& call) {
    if (!call.save_for_backward || !chunked.runs(call.problem, current_device_limits()))
      return scan.forward(call);
    if (!chunked.prepare) return save_chunk_starts(call);
    const ForkedStream beside(call.stream);
    save_chunk_starts(call);
    chunked.prepare(
        {in_chunks(call.problem), call.inputs, call.outputs, call.workspace, beside.side(), true});
  };
  variant.backward = [scan, chunked, in_chunks](const BackwardCall& call) {
    if (!chunked.runs(call.problem, current_device_limits())) return scan.backward(call);
    const Problem p = in_chunks(call.problem);
    chunked.backward({p, call.inputs, call.grad_outputs, call.grads, call.workspace, call.stream});
  };
  return variant;
}

}  // namespace flabench::fused
