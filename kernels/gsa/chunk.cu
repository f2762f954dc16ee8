// gsa's chunk variant (forward): both passes chunkwise, GLA's chunk kernels (kernels/common/chunk/) run with
// the M slots in the key channels' place, gsa's own logits between them:
//   1. states  one prepare (s e^{decay after it to its chunk's end}, each chunk's summed decay) and two of
//              GLA's scans over it, against v for Hv [M][V] and against k for Hk^T [M][K] (hk0 transposed in,
//              hkt transposed out): the states before every chunk
//   2. logits  pass 1 per chunk and query head, then p = softmax (chunk_logits.cuh), into the workspace
//   3. outputs GLA's output pass with p as the queries, s as the keys, f as the gates and scale 1 (pass 2)
// Every exponent is composed from 16-token sub-chunk sums and never positive, so f down to -40 cannot
// overflow. No backward yet (support.backward = false: fwdbwd cases are skipped with that reason).
#include <algorithm>
#include <optional>
#include <string>

#include "kernels/common/chunk/variant.cuh"
#include "kernels/common/forked_stream.h"
#include "kernels/common/format.h"
#include "kernels/gsa/chunk_logits.cuh"
#include "kernels/gsa/chunk_workspace.h"
#include "kernels/gsa/gsa.h"
#include "profiles/nvtx_range.h"

namespace flabench {
namespace gsa {
namespace {

// out[head][c][r] = in[head][r][c] over `heads` [rows][cols] fp32 matrices: hk0 into the scan's layout, the
// scan's last state back to hkt's.
__global__ void transpose_states_kernel(const float* in, float* out, int heads, int rows, int cols) {
  const std::int64_t size = std::int64_t(rows) * cols, total = heads * size;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t head = idx / size;
    const int r = int(idx % size) / cols, c = int(idx % size) % cols;
    out[(head * cols + c) * rows + r] = in[idx];
  }
}

void transpose_states(const float* in, float* out, const Problem& p, int rows, int cols,
                      cudaStream_t stream) {
  const std::int64_t total = p.B * p.H * rows * cols;
  transpose_states_kernel<<<unsigned(std::min<std::int64_t>((total + 255) / 256, 4096)), 256, 0, stream>>>(
      in, out, int(p.B * p.H), rows, cols);
  FLA_CUDA_CHECK_LAUNCH();
}

std::size_t logits_shared_bytes(const Problem& p, bool grads) {
  return sizeof(float) * logits_floats(p.chunk_size, int(p.K), int(p.M), grads, int(p.V));
}

// to += from, element by element: pass 1's share of ds and df added to pass 2's.
template <class T>
__global__ void add_into_kernel(T* to, const T* from, std::int64_t count) {
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < count;
       idx += std::int64_t(gridDim.x) * blockDim.x)
    to[idx] = from_float<T>(to_float(to[idx]) + to_float(from[idx]));
}

ChunkWorkspace workspace_of(const Problem& p) {
  return ChunkWorkspace(p, chunk::prepared_size(p.dtype), dtype_size(p.dtype));
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
  {
    const NvtxRange range("decays");
    flabench::Pointers<T> decays{};
    decays.k = in.s, decays.g = in.f;
    chunk::Workspace ws{};
    ws.whole = floats(w.whole), ws.keys_to_end = base + w.slots_to_end;
    chunk::launch_prepare<GlaForm, T, chunk::Operand::keys_to_end>(decays, slots, ws, call.stream);
  }
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
      transpose_states(in.hk0, floats(w.key_initial), p, K, M, call.stream);
      chunk::launch_scan(chunk::Scan<T>{operand, in.k, floats(w.whole), floats(w.key_initial),
                                        floats(w.key_states), floats(w.key_final), false},
                         keys, call.stream);
      transpose_states(floats(w.key_final), in.hkt, p, M, K, call.stream);
    }
    const NvtxRange range("logits");
    const std::size_t bytes = logits_shared_bytes(p, false);
    allow_shared_memory(chunk_logits_kernel<T>, bytes);
    chunk_logits_kernel<T>
        <<<dim3(unsigned(p.B * p.H * p.G), unsigned(slots.chunks())), kLogitsThreads, bytes, call.stream>>>(
            LogitsArgs<T>{in.q, in.k, nullptr, in.s, in.f, nullptr, floats(w.key_states), nullptr, weights,
                          slots, K, int(p.V)});
    FLA_CUDA_CHECK_LAUNCH();
  }
  const NvtxRange range("outputs");
  flabench::Pointers<T> second{};
  second.q = weights, second.k = in.s, second.v = in.v, second.g = in.f, second.o = in.o;
  chunk::Dims pass2 = slots;
  pass2.scale = 1.f;
  chunk::launch_output<GlaForm, T>(second, pass2, floats(w.value_states), call.stream);
}

// Both passes' gradients through GLA's chunk backward (kernels/common/chunk/variant.cuh), from the
// forward's states, decays and p left in the workspace:
//   1. logit grads  dz = scale p (dp - p . dp), dp = o's gradient through p (chunk_logits.cuh)
//   2. pass 2       GLA with q = p, k = s, v = v, g = f, state Hv: dv, ds, df, dhv0 (its dq, dp, unused)
//   3. pass 1       as GLA with q = dz, k = s, v = k, g = f, state Hk^T and do = q: since
//                   sum_i dz_i . z_i = sum_i q_i . (Hk_i dz_i), that GLA's gradients of v, k, g and h0 are
//                   pass 1's dk, ds, df and dhk0^T (hkt's incoming gradient its final state's, transposed)
//   4. dq           GLA's output pass with q = dz, k = s, v = k over Hk^T's states: dq_i = Hk_i dz_i
// ds and df add the two passes' shares.
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
  chunk::Dims slots{int(p.B), int(p.T), int(p.H), M, int(p.V), p.chunk_size, float(p.scale), int(p.G)};
  {
    const NvtxRange range("logit_grads");
    const std::size_t bytes = logits_shared_bytes(p, true);
    allow_shared_memory(chunk_logit_grads_kernel<T>, bytes);
    chunk_logit_grads_kernel<T>
        <<<dim3(unsigned(p.B * p.H * p.G), unsigned(slots.chunks())), kLogitsThreads, bytes, call.stream>>>(
            LogitsArgs<T>{in.q, in.k, in.v, in.s, in.f, g.d_o, floats(w.key_states), floats(w.value_states),
                          rows(w.logit_grads), slots, K, int(p.V)});
    FLA_CUDA_CHECK_LAUNCH();
  }
  slots.scale = 1.f;
  chunk::Workspace ws{};
  ws.dstates = floats(w.state_grads), ws.whole = floats(w.whole), ws.keys_to_end = base + w.slots_to_end;
  ws.queries_from_start = base + w.queries_from_start;
  {
    const NvtxRange range("pass2_grads");
    flabench::Pointers<T> pass{};
    pass.q = rows(w.weights), pass.k = in.s, pass.v = in.v, pass.g = in.f;
    flabench::GradPointers<T> grads{};
    grads.d_o = g.d_o, grads.d_ht = g.d_hvt, grads.dq = rows(w.unused_grads), grads.dk = g.ds,
    grads.dv = g.dv;
    grads.dg = g.df, grads.dh0 = g.dhv0;
    ws.states = floats(w.value_states);
    chunk::launch_backward<GlaForm, T>(pass, grads, slots, ws, call.stream);
  }
  chunk::Dims keys = slots;
  keys.V = K;
  {
    const NvtxRange range("pass1_grads");
    transpose_states(g.d_hkt, floats(w.key_initial), p, K, M, call.stream);
    flabench::Pointers<T> pass{};
    pass.q = rows(w.logit_grads), pass.k = in.s, pass.v = in.k, pass.g = in.f;
    flabench::GradPointers<T> grads{};
    grads.d_o = in.q, grads.d_ht = floats(w.key_initial), grads.dq = rows(w.unused_grads);
    grads.dk = rows(w.slot_grads), grads.dv = g.dk, grads.dg = rows(w.gate_grads);
    grads.dh0 = floats(w.key_final);
    ws.states = floats(w.key_states);
    chunk::launch_backward<GlaForm, T>(pass, grads, keys, ws, call.stream);
    transpose_states(floats(w.key_final), g.dhk0, p, M, K, call.stream);
  }
  {
    const NvtxRange range("query_grads");
    flabench::Pointers<T> pass{};
    pass.q = rows(w.logit_grads), pass.k = in.s, pass.v = in.k, pass.g = in.f, pass.o = g.dq;
    chunk::launch_output<GlaForm, T>(pass, keys, floats(w.key_states), call.stream);
  }
  const std::int64_t count = p.B * p.T * p.H * p.M;
  const unsigned blocks = unsigned(std::min<std::int64_t>((count + 255) / 256, 4096));
  add_into_kernel<T><<<blocks, 256, 0, call.stream>>>(g.ds, rows(w.slot_grads), count);
  FLA_CUDA_CHECK_LAUNCH();
  add_into_kernel<T><<<blocks, 256, 0, call.stream>>>(g.df, rows(w.gate_grads), count);
  FLA_CUDA_CHECK_LAUNCH();
}

std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  if (p.K % 16 != 0 || p.M % 16 != 0 || p.M > kLogitsMaxSlots)
    return format(
        "chunk takes K and M in multiples of 16 (the tensor cores' k step) and M up to %d (two warps' tiles "
        "of logits), not K=%lld, M=%lld",
        kLogitsMaxSlots, static_cast<long long>(p.K), static_cast<long long>(p.M));
  if (p.V % 8 != 0)
    return format("chunk takes value dims in multiples of 8 (16-byte loads), not %lld",
                  static_cast<long long>(p.V));
  const std::size_t input_bytes = dtype_size(p.dtype);
  std::size_t bytes = std::max({chunk::prepare_shared_bytes(p.chunk_size, int(p.M)),
                                chunk::output_shared_bytes(p.chunk_size, int(p.M), 64, input_bytes),
                                logits_shared_bytes(p, false)});
  if (mode == Mode::fwdbwd) {
    if (p.G != 1)
      return format("chunk's backward takes one query head per key/value head (G = 1), not G = %lld",
                    static_cast<long long>(p.G));
    bytes = std::max({bytes, logits_shared_bytes(p, true),
                      chunk::value_grads_shared_bytes(p.chunk_size, int(p.M), input_bytes),
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

}  // namespace
}  // namespace gsa

Variant gsa_chunk_variant() {
  Variant variant;
  variant.op = "gsa";
  variant.name = "chunk";
  variant.description =
      "chunkwise: GLA's chunk scan for both states (the slots as its key channels), pass 1's logits and "
      "softmax per chunk, GLA's output pass for pass 2; tensor cores for bf16/fp16; forward only";
  variant.backend = Backend::cuda;
  variant.support.chunk_sizes = {16, 32, 64};
  variant.support.default_chunk_size = 32;  // the fastest at 4 of the 5 peer shapes (kernels/notes/gsa.md)
  variant.support.limits = gsa::limits;
  variant.workspace_bytes = [](const Problem& p) { return gsa::workspace_of(p).total; };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { gsa::forward<decltype(tag)>(call); });
  variant.backward =
      by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) { gsa::backward<decltype(tag)>(call); });
  return variant;
}

}  // namespace flabench
