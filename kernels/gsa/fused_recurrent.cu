// gsa's fused_recurrent variant (forward): the fp32 states in registers, in one of two forms.
// - joint (fused_joint.cuh): one kernel whose blocks run pass 1 and pass 2 on separate warps a chunk apart,
//   the softmax between them in shared memory; every block of a head repeats pass 1.
// - split (fused_split.cuh): pass 1 writes fp32 logits, then pass 2 takes their softmax; each kernel spreads
//   its own state over the SMs.
// The joint kernel holds pass 1 (K x M) in at most 512 threads: past 8 keys per thread (K x M > 4096, e.g.
// K = 128, M = 64) its per-token stream grows and the split form is faster (0.60-0.81x at D = 128); at
// K x M <= 4096 the joint kernel is (the split one 1.05-1.13x slower at D = 64). kernels/notes/gsa.md,
// versions 8 and 11.
#include <optional>
#include <string>

#include "kernels/common/format.h"
#include "kernels/gsa/fused_joint.cuh"
#include "kernels/gsa/fused_split.cuh"
#include "kernels/gsa/gsa.h"

namespace flabench {
namespace gsa {
namespace {

bool split_form(const Problem& p) {
  return p.K * p.M > 8 * joint::kMaxPassThreads;
}

template <class T>
void forward(const ForwardCall& call) {
  if (split_form(call.problem))
    split::forward<T>(call);
  else
    joint::forward<T>(call);
}

std::optional<std::string> limits(const Problem& p, Mode, const DeviceLimits& device) {
  const auto fits = [](std::int64_t n) { return n == 32 || n == 64 || n == 128; };
  if (!fits(p.K) || !fits(p.M))
    return format(
        "fused_recurrent holds up to 32 keys or slots of a column per thread: K and M in {32, 64, 128}, not "
        "K=%lld, M=%lld",
        static_cast<long long>(p.K), static_cast<long long>(p.M));
  const auto power_of_two = [](std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; };
  if (!power_of_two(p.V) || p.V < 16 || p.V > 256 || !power_of_two(p.G))
    return format(
        "fused_recurrent stages rows in power-of-two pieces: V in {16, 32, ..., 256} and G a power of "
        "two, not V=%lld, G=%lld",
        static_cast<long long>(p.V), static_cast<long long>(p.G));
  return split_form(p) ? split::limits(p, device) : joint::limits(p, device);
}

}  // namespace
}  // namespace gsa

Variant gsa_fused_recurrent_variant() {
  Variant variant;
  variant.op = "gsa";
  variant.name = "fused_recurrent";
  variant.description =
      "fp32 states in registers; both passes in one kernel (V split across blocks when heads are few), or "
      "where pass 1 is large two kernels joined by fp32 logits; forward only so far";
  variant.backend = Backend::cuda;
  variant.support.backward = false;
  variant.support.limits = gsa::limits;
  variant.workspace_bytes = [](const Problem& p) {
    return gsa::split_form(p) ? gsa::split::workspace_bytes(p) : std::size_t(0);
  };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { gsa::forward<decltype(tag)>(call); });
  return variant;
}

}  // namespace flabench
