// gsa chunk's forward: both passes chunkwise, GLA's chunk kernels (kernels/common/chunk/) run with the M
// slots in the key channels' place, gsa's own logits between them:
//   1. states  one prepare (s e^{decay after it to its chunk's end}, each chunk's summed decay) and two of
//              GLA's scans over it, against v for Hv [M][V] and against k for Hk^T [M][K] (hk0 transposed in,
//              hkt transposed out): the states before every chunk
//   2. logits  pass 1 per chunk and query head, then p = softmax (chunk_logits.cuh), into the workspace
//   3. outputs GLA's output pass with p as the queries, s as the keys, f as the gates and scale 1 (pass 2)
// Every exponent is composed from 16-token sub-chunk sums and never positive, so f down to -40 cannot
// overflow. The states, decays and p (also in fp32 when a backward follows) stay in the workspace for the
// backward (chunk_backward.cuh).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/common/chunk/launch.cuh"
#include "kernels/common/forked_stream.h"
#include "kernels/gsa/chunk_logits.cuh"
#include "kernels/gsa/chunk_workspace.h"
#include "kernels/gsa/pointers.cuh"
#include "kernels/gsa/transpose_states.h"
#include "profiles/nvtx_range.h"

namespace flabench::gsa {

inline ChunkWorkspace workspace_of(const Problem& p) {
  return ChunkWorkspace(p, chunk::prepared_size(p.dtype), dtype_size(p.dtype));
}

// The decays both passes' scans and backwards read (GLA's prepare, with the slots as its keys): each chunk's
// summed log decay per slot and the scan's operand s e^{decay after it to its chunk's end}.
template <class T>
void prepare_decays(const gsa::Pointers<T>& in, const Problem& p, std::byte* base, cudaStream_t stream,
                    chunk::SecondPart second_part = chunk::SecondPart::written) {
  const NvtxRange range("decays");
  const ChunkWorkspace w = workspace_of(p);
  const chunk::Dims slots{int(p.B), int(p.T),     int(p.H),       int(p.M),
                          int(p.V), p.chunk_size, float(p.scale), int(p.G)};
  flabench::Pointers<T> decays{};
  decays.k = in.s, decays.g = in.f;
  chunk::Workspace ws{};
  ws.whole = reinterpret_cast<float*>(base + w.whole), ws.keys_to_end = base + w.slots_to_end;
  chunk::launch_prepare<GlaForm, T, chunk::Operand::keys_to_end>(decays, slots, ws, stream, second_part);
}

template <class T>
void forward(const ForwardCall& call) {
  const Problem& p = call.problem;
  const gsa::Pointers<T> in = bind_forward<T>(call);
  const ChunkWorkspace w = workspace_of(p);
  std::byte* const base = call.workspace.data();
  const auto floats = [&](std::size_t at) { return reinterpret_cast<float*>(base + at); };
  const int K = int(p.K), M = int(p.M);
  // GLA's dims with the slots as its key channels; the Hk^T scan has the key dim in the values' place.
  const chunk::Dims slots{int(p.B), int(p.T), int(p.H), M, int(p.V), p.chunk_size, float(p.scale), int(p.G)};
  chunk::Dims keys = slots;
  keys.V = K;
  const auto* operand = reinterpret_cast<const chunk::Prepared<T>*>(base + w.slots_to_end);
  prepare_decays<T>(in, p, base, call.stream);
  T* const weights = reinterpret_cast<T*>(base + w.weights);
  {
    // Hv's scan on a side stream beside Hk's scan and the logits, which do not read it: both scans are
    // sequential over the chunks and leave SMs idle where heads are few.
    const ForkedStream fork(call.stream);
    {
      const NvtxRange range("value_states");
      chunk::launch_scan(
          chunk::Scan<T>{operand, in.v, floats(w.whole), in.hv0, floats(w.value_states), in.hvt, false},
          slots, fork.side());
    }
    {
      const NvtxRange range("key_states");
      transpose_states(in.hk0, floats(w.key_initial), p.B * p.H, K, M, call.stream);
      chunk::launch_scan(chunk::Scan<T>{operand, in.k, floats(w.whole), floats(w.key_initial),
                                        floats(w.key_states), floats(w.key_final), false},
                         keys, call.stream);
      transpose_states(floats(w.key_final), in.hkt, p.B * p.H, M, K, call.stream);
    }
    const NvtxRange range("logits");
    const std::size_t bytes = logits_shared_bytes(p, false);
    with_logit_tiles(p.chunk_size, M, [&](auto tiles) {
      const auto kernel = chunk_logits_kernel<T, decltype(tiles)::value>;
      allow_shared_memory(kernel, bytes);
      kernel<<<dim3(unsigned(p.B * p.H * p.G), unsigned(slots.chunks())), kLogitsThreads, bytes,
               call.stream>>>(LogitsArgs<T>{in.q, in.k, in.s, in.f, floats(w.key_states), K, nullptr, weights,
                                            call.save_for_backward ? floats(w.saved_weights) : nullptr,
                                            slots});
    });
    FLA_CUDA_CHECK_LAUNCH();
  }
  const NvtxRange range("outputs");
  flabench::Pointers<T> second{};
  second.q = weights, second.k = in.s, second.v = in.v, second.g = in.f, second.o = in.o;
  chunk::Dims pass2 = slots;
  pass2.scale = 1.f;
  chunk::launch_output<GlaForm, T>(second, pass2, floats(w.value_states), call.stream);
}

}  // namespace flabench::gsa
