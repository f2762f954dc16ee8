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
// The backward follows the forward's form: after the gla passes, gla's fused backward for pass 2 and, taken
// transposed, for pass 1 (gla_passes_backward.cuh; their forward leaves the logits, p and Hv's checkpoints);
// after the split form (grouped queries), seven scans of gsa's own (fused_backward.cuh; that forward leaves
// the logits and Hk's checkpoints).
#include <optional>
#include <string>

#include "kernels/common/format.h"
#include "kernels/gsa/fused_backward.cuh"
#include "kernels/gsa/fused_joint.cuh"
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

template <class T>
void backward(const BackwardCall& call) {  // after the forward the same test chose
  if (gla_passes::runs(call.problem, /*backward=*/true))
    gla_passes::backward<T>(call);
  else
    split::backward<T>(call);
}

template <class T>
void forward(const ForwardCall& call) {
  const FusedWorkspace w(call.problem);
  float* const base = reinterpret_cast<float*>(call.workspace.data());
  if (gla_passes::runs(call.problem, call.save_for_backward))
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
        "K=%lld, M=%lld (with one query head a state pair, K in {16, ..., 256} where shared memory allows)",
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
  return gsa::gla_passes::fits(p, mode == Mode::fwdbwd, device);
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
      "Hv checkpoints every 16 tokens in seven scans";
  variant.backend = Backend::cuda;
  variant.support.limits = gsa::limits;
  variant.workspace_bytes = [](const Problem& p, Mode, const DeviceLimits&) {
    return gsa::FusedWorkspace(p).bytes();
  };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { gsa::forward<decltype(tag)>(call); });
  variant.backward =
      by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) { gsa::backward<decltype(tag)>(call); });
  return variant;
}

}  // namespace flabench
