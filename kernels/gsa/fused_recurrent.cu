// gsa's fused_recurrent variant: the fp32 states in registers; the forward in one of three forms.
// - gla passes (gla_passes.cuh), where one query head reads each state pair (G = 1): pass 1 on gla's fused
//   forward with its decay on the slots (fp32 logits), a softmax kernel, pass 2 on gla's fused forward
//   itself; where few heads leave schedulers room, pipelined over segments of the sequence on two
//   streams. 2.2-3.4x faster than the two forms below at the peer shapes (kernels/notes/gsa.md, version 17).
// - joint (fused_joint.cuh): one kernel whose blocks run pass 1 and pass 2 on separate warps a chunk apart,
//   the softmax between them in shared memory; every block of a head repeats pass 1.
// - split (fused_split.cuh): pass 1 writes fp32 logits, then pass 2 takes their softmax; each kernel spreads
//   its own state over the SMs.
// With grouped queries (G > 1) the joint kernel holds pass 1 (K x M) in at most 512 threads: past 8 keys per
// thread (K x M > 4096) the split form is faster; at K x M <= 4096 the joint kernel is, where its block holds
// both passes (not, e.g., K = 32, M = V = 128 or V = 256: 640 threads). kernels/notes/gsa.md, versions 8, 11.
// The backward follows the forward's form: after the gla passes, where the chunk variant's backward takes
// the shape (every peer shape on a Hopper), that backward, from the states the gla passes save before its
// chunks and p (InChunks below); elsewhere (fp32 at M = 128 where the chunk form's blocks do not fit), gla's
// fused backward for pass 2 and, taken transposed, for pass 1 (gla_passes_backward.cuh; their forward leaves
// the logits, p and both passes' checkpoints); after the split form (grouped queries, and 16-bit fwd+bwd the
// chunk form does not take: gla_passes_run), seven scans of gsa's own (fused_backward.cuh; that forward
// leaves the logits and Hk's checkpoints).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/common/chunk/workspace.cuh"
#include "kernels/common/format.h"
#include "kernels/gsa/chunk_workspace.h"
#include "kernels/gsa/fused_backward.cuh"
#include "kernels/gsa/fused_joint.cuh"
#include "kernels/gsa/fused_plan.h"
#include "kernels/gsa/fused_split.cuh"
#include "kernels/gsa/fused_workspace.h"
#include "kernels/gsa/gla_passes.cuh"
#include "kernels/gsa/gla_passes_backward.cuh"
#include "kernels/gsa/gsa.h"

namespace flabench {
namespace gsa {
namespace {

bool split_form(const Problem& p) {
  return p.K * p.M > 8 * joint::kMaxPassThreads || !joint::threads_fit(p);
}

// A fwd+bwd's backward in chunk form, as gla's fused_recurrent takes its chunk variant's (kernels/notes/
// fused_recurrent.md, version 63; here kernels/notes/gsa.md, version 34): where the gla passes run the
// fwd+bwd and gsa chunk's backward takes the shape in its chunks, the forward is the gla passes saving Hk^T
// and Hv before every chunk, the logits and then p (in the dtype and in fp32) where the chunk variant keeps
// them (ChunkWorkspace), and the backward is the chunk variant's from those: every chunk's gradients on the
// tensor cores (16-bit inputs) instead of two more scans. The method is checkpoints with recomputation, the
// recomputation in chunk form. The shapes it takes are a subset of the gla passes' backward's: support is
// unchanged. It is also the faster wherever it runs, on one H200: 16-bit at every peer shape (bf16
// 0.70-0.87x the scans' fwd+bwd, fp16 0.80-1.02x; kernels/notes/gsa.md, version 34), fp32 (its products in
// 3xTF32) 0.91-0.92x at K + V = 256 (version 47) and, since versions 59-60 made its dq in pass 1's value
// gradients, 0.97-0.98x where the scans fill the GPU (8,1024,8,64 and 4,4096,16,64: version 61).
struct InChunks {
  ChunkedBackward chunked;

  Problem problem(const Problem& p) const {
    Problem in_chunks = p;
    in_chunks.chunk_size = chunked.chunk;
    return in_chunks;
  }
  bool runs(const Problem& p, const DeviceLimits& device) const {
    return gla_passes::fits(p, /*backward=*/true, device) && chunked.runs(p, device);
  }
  std::int64_t chunks(const Problem& p) const { return (p.T + chunked.chunk - 1) / chunked.chunk; }
  ChunkWorkspace workspace(const Problem& p) const {
    return ChunkWorkspace(problem(p), chunk::prepared_size(p.dtype), dtype_size(p.dtype));
  }
  // The chunk variant's workspace, then the states the forward's segments hand on (gla_passes::forward).
  std::size_t bytes(const Problem& p) const {
    return workspace(p).total + sizeof(float) * 2 * p.B * p.H * p.M * (p.K + p.V);
  }
  gla_passes::CheckpointPlan saves() const { return {chunked.chunk / fused::kChunk}; }
};

InChunks in_chunks_of(ChunkedBackward chunked) {
  const InChunks in_chunks{std::move(chunked)};
  const int every = in_chunks.saves().every;
  // a chunk a power of two of checkpoints, and segments (whole wide chunks) starting at a chunk
  if (in_chunks.chunked.chunk % fused::kChunk != 0 || (every & (every - 1)) != 0 ||
      fused::kWideChunk % in_chunks.chunked.chunk != 0)
    throw std::logic_error(
        "gsa fused_recurrent: a chunk must be a power of two of checkpoints in a wide chunk");
  return in_chunks;
}

// Hv's checkpoints of chunks [first, last) of every head back from Hv^T into the chunk variant's place.
void transpose_values(const Problem& p, const InChunks& in_chunks, std::byte* base, std::int64_t first,
                      std::int64_t last, cudaStream_t stream) {
  const ChunkWorkspace w = in_chunks.workspace(p);
  transpose_states(reinterpret_cast<const float*>(base + w.state_grads),
                   reinterpret_cast<float*>(base + w.value_states), p.B * p.H, in_chunks.chunks(p), first,
                   last - first, int(p.V), int(p.M), stream);
}

// Where pass 2 saves Hv transposed (gla_passes::values_saved_transposed), it saves them into the room of the
// backward's state gradients (as large at G = 1, and written only once the backward has read them), and they
// are transposed into the chunk variant's place: those of tail_values_tokens in the forward's tail, beside
// pass 2's last segments, the rest by the backward. The chunked backward's decays are made in that tail
// too (gla_passes::Tail; kernels/notes/gsa.md, version 58).
template <class T>
void forward_in_chunks(const ForwardCall& call, const InChunks& in_chunks) {
  const Problem& p = call.problem;
  const ChunkWorkspace w = in_chunks.workspace(p);
  std::byte* const base = call.workspace.data();
  const auto floats = [&](std::size_t at) { return reinterpret_cast<float*>(base + at); };
  float* const weights_fp32 = floats(w.saved_weights);  // the logits first, p there in place
  const bool transposed = gla_passes::values_saved_transposed(p, current_device_limits().multiprocessors);
  const Problem chunked = in_chunks.problem(p);
  gla_passes::Tail tail;
  tail.inputs = [&](cudaStream_t stream) {
    in_chunks.chunked.prepare({chunked, call.inputs, call.outputs, call.workspace, stream, true});
  };
  if (transposed)
    tail.values = [&](cudaStream_t stream, std::int64_t tokens) {
      transpose_values(p, in_chunks, base, 0, tokens / in_chunks.chunked.chunk, stream);
    };
  gla_passes::forward<T>(call, weights_fp32, reinterpret_cast<T*>(base + w.weights), floats(w.total),
                         {floats(w.key_states), floats(transposed ? w.state_grads : w.value_states),
                          in_chunks.saves(), weights_fp32, transposed},
                         tail);
}

template <class T>
void backward_in_chunks(const BackwardCall& call, const InChunks& in_chunks) {
  const Problem& p = call.problem;
  const DeviceLimits device = current_device_limits();
  if (gla_passes::values_saved_transposed(p, device.multiprocessors)) {
    // the forward's tail transposed those of tail_values_tokens (gla_passes::forward, same schedulers)
    const std::int64_t done =
        gla_passes::tail_values_tokens(p, 4 * device.multiprocessors) / in_chunks.chunked.chunk;
    transpose_values(p, in_chunks, call.workspace.data(), done, in_chunks.chunks(p), call.stream);
  }
  in_chunks.chunked.backward(
      {in_chunks.problem(p), call.inputs, call.grad_outputs, call.grads, call.workspace, call.stream});
}

const InChunks& in_chunks() {
  static const InChunks chunks = in_chunks_of(gsa_chunked_backward());
  return chunks;
}

// Whether the gla passes run p's forward and, where a backward follows, that backward too: in chunk form
// (InChunks), else their own (gla_passes_backward.cuh) in fp32 only. gla's kernels take their queries in the
// inputs' type, so with 16-bit inputs p (pass 2's) and dz (pass 1's) would reach them rounded: the initial
// states' gradients 1.3e-3 (dhk0) and 2.0e-3 (dhv0) in bf16 against 1e-4 (K = 256 planned for 99 KiB a
// block, where the chunk form does not fit; results/baselines/h200/stop70-cap). gsa's own scans keep both
// in fp32.
bool gla_passes_run(const Problem& p, bool backward, const DeviceLimits& device) {
  if (!backward) return gla_passes::fits(p, false, device);
  return in_chunks().runs(p, device) || (p.dtype == DType::fp32 && gla_passes::fits(p, true, device));
}

template <class T>
void backward(const BackwardCall& call) {  // after the forward the same tests chose
  const Problem& p = call.problem;
  const DeviceLimits device = current_device_limits();
  if (in_chunks().runs(p, device)) return backward_in_chunks<T>(call, in_chunks());
  if constexpr (std::is_same_v<T,
                               float>) {  // (16-bit inputs reach the gla passes' backward in chunk form only)
    if (gla_passes_run(p, /*backward=*/true, device)) return gla_passes::backward<T>(call);
  }
  split::backward<T>(call);
}

template <class T>
void forward(const ForwardCall& call) {
  const DeviceLimits device = current_device_limits();
  if (call.save_for_backward && in_chunks().runs(call.problem, device))
    return forward_in_chunks<T>(call, in_chunks());
  const FusedWorkspace w(call.problem);
  float* const base = reinterpret_cast<float*>(call.workspace.data());
  if (gla_passes_run(call.problem, call.save_for_backward, device))
    gla_passes::forward<T>(call, base + w.logits, reinterpret_cast<T*>(base + w.weights),
                           base + w.gla_backward, {base + w.key_checkpoints, base + w.value_checkpoints});
  else if (call.save_for_backward)
    split::forward<T>(call, base + w.logits, base + w.key_checkpoints);
  else if (split_form(call.problem))
    split::forward<T>(call, base + w.logits, nullptr);
  else
    joint::forward<T>(call);
}

std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  if (gsa_fused_takes_gla_passes(p, mode, device)) return std::nullopt;  // gla's kernels, their K and V
  const auto fits = [](std::int64_t n) { return n == 32 || n == 64 || n == 128; };
  if (!fits(p.K) || !fits(p.M))
    return format(
        "fused_recurrent holds up to 32 keys or slots of a column per thread: K and M in {32, 64, 128}, not "
        "K=%lld, M=%lld (with one query head a state pair, K in {16, ..., 256} where shared memory allows, "
        "and for a 16-bit fwd+bwd where its chunk form's does)",
        static_cast<long long>(p.K), static_cast<long long>(p.M));
  const auto power_of_two = [](std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; };
  if (!power_of_two(p.V) || p.V < 16 || p.V > 256 || !power_of_two(p.G))
    return format(
        "fused_recurrent stages rows in power-of-two pieces: V in {16, 32, ..., 256} and G a power of "
        "two, not V=%lld, G=%lld",
        static_cast<long long>(p.V), static_cast<long long>(p.G));
  if (mode == Mode::fwdbwd) {
    if (auto why = split::limits(p, int(p.K), int(p.V), device)) return why;
    return split::backward_limits(p, device);
  }
  return split_form(p) ? split::limits(p, int(p.K), int(p.V), device) : joint::limits(p, device);
}

}  // namespace
}  // namespace gsa

bool gsa_fused_takes_gla_passes(const Problem& p, Mode mode, const DeviceLimits& device) {
  return gsa::gla_passes_run(p, mode == Mode::fwdbwd, device);
}

bool gsa_fused_backward_in_chunks(const Problem& p, const DeviceLimits& device) {
  return gsa::in_chunks().runs(p, device);
}

Variant gsa_fused_recurrent_variant() {
  Variant variant;
  variant.op = "gsa";
  variant.name = "fused_recurrent";
  variant.description =
      "fp32 states in registers; with one query head a state pair both passes on gla's fused_recurrent "
      "kernels (pass 1 with its decay on the slots, and transposed for the backward), joined by fp32 "
      "logits and a softmax kernel and pipelined over segments of the sequence where heads are few; with "
      "grouped queries both passes in one kernel, or two where pass 1 is large, and a backward from Hk and "
      "Hv checkpoints every 16 tokens in seven scans; a fwd+bwd on the gla passes takes the chunk "
      "variant's backward (in chunks of 32, from Hk and Hv saved before them) where that variant takes the "
      "shape";
  variant.backend = Backend::cuda;
  variant.support.limits = gsa::limits;
  // (a fwd+bwd's workspace also holds a forward alone: the checks run the inference forward on it)
  variant.workspace_bytes = [](const Problem& p, Mode mode, const DeviceLimits& device) {
    const std::size_t alone = gsa::FusedWorkspace(p).bytes();
    const gsa::InChunks& in_chunks = gsa::in_chunks();
    return mode == Mode::fwdbwd && in_chunks.runs(p, device) ? std::max(alone, in_chunks.bytes(p)) : alone;
  };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { gsa::forward<decltype(tag)>(call); });
  variant.backward =
      by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) { gsa::backward<decltype(tag)>(call); });
  return variant;
}

}  // namespace flabench
