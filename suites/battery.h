// The check battery of `fla-bench check`: named families of cases that catch the failures chunked and
// recurrent kernels are known for (shared/spec/ops.md section 10), on every variant the registry holds for
// the device's backend, so a variant added later is covered without extra work.
//
//   accuracy  every output and gradient against the fp64 reference, fwd and fwdbwd, and fwdbwd under a small
//             loss (every incoming gradient 2^-10: Magnitude::small_loss)
//   decay     log decays near 0 (-1e-6), at the op's floor (-40; rwkv7's layer bounds w at -exp(-1/2)), and
//             both mixed with typical values per channel inside one chunk: no NaN/Inf, errors in bounds
//   shapes    K != V both ways, T around chunk and checkpoint boundaries and odd primes, B*H = 1, the head
//             dims a variant claims, and (on a GPU) the whole 24,576-token sequence and the kernels a GPU
//             with less shared memory a block picks (kSmallerGpuSharedMemory: an RTX 40xx's, an A100's)
//   state     the initial state in, its gradient and the final state's with K != V and slow decay (so the
//             state dominates); an initial state, or the final state's incoming gradient, beyond fp16's range
//             (2^17 times the usual draw) with what it multiplies turned down as far (Magnitude), so outputs
//             and gradients stay in range and a kernel that hands either to fp16 anywhere shows it (the
//             large state also under a small loss, where gsa's logit gradient falls among fp16's
//             subnormals while dq keeps its size); prefill T1 tokens with one variant and hand its final
//             state to another for T2 more: the same outputs and final state as one pass over T1 + T2
//             (against the fp64 reference)
//   cross     every pair of variants of an op on the same inputs
//   hygiene   inputs bitwise unchanged by forward and backward; every output and gradient element written;
//             two calls bitwise equal (unless the variant declares it is not deterministic)
//
// Case names: family/op/variant/mode/dtype/shape/probe, e.g.
// decay/gla/fused_recurrent/fwdbwd/bf16/B2-T65-H2-K64-V32/floor,
// state/gla/naive>fused_recurrent/fwd/bf16/B2-T65-H2-K64-V32/prefill40, cross/gla/naive~fused_recurrent/...
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "results/record.h"
#include "results/reporter.h"
#include "suites/device.h"

namespace flabench {

enum class Family { accuracy, decay, shapes, state, cross, hygiene };
std::string_view family_name(Family family);

// The log decays of a case's gate input.
// The log decay of the beyond scenario: issue 5's wider range for rwkv7, w in [-5, 0).
inline constexpr double kBeyondLogDecay = -5.0;

// The shared memory a block (opt-in maximum) of the smaller GPUs our users compare with: an RTX 40xx's (any
// sm_86 or sm_89 part's) and an A100's. The shapes family plans cases for each (BatteryCase::
// shared_memory_cap), named shared_memory_<KiB>KiB.
inline constexpr std::size_t kRtx40SharedMemory = 99 * 1024, kA100SharedMemory = 163 * 1024;
inline constexpr std::size_t kSmallerGpuSharedMemory[] = {kRtx40SharedMemory, kA100SharedMemory};

// Magnitude scenarios. The state family's: values past fp16's 65504 in a state or its gradient, everything
// they multiply scaled down so that outputs and gradients keep their usual size; a kernel that hands the
// state or its gradient to fp16 anywhere shows inf, one that keeps them in fp32 or bf16 passes. The
// accuracy family's small loss: gradients near the bottom of fp16's range. Powers of two: only fp16's
// subnormals round.
enum class Magnitude {
  usual,
  // The first initial state times kLargeState (2^17: most elements of a normal draw past 65504); its reader
  // (OpSpec::state_reader) times kLargeStateReader (2^-10, as far as fp16's normal range allows) and the
  // op's scale times kLargeStateScale (the rest), so the products the state enters keep their usual size
  // (gsa's softmax logits among them); the final states' incoming gradients times kLargeStateReader too, so
  // a gate's gradient (the state times the state's gradient) stays in range. The output's incoming gradient
  // stays as drawn: dq = scale S do is then 2^10 times its usual size, and gsa's logit gradient
  // (scale p (dp - p . dp)) 2^-7, within fp16's normal range.
  large_state,
  // Every final state's incoming gradient times kLargeStateGradient (2^17), so the state gradients dS_t are
  // past 65504; what dS multiplies scaled down by kSmallFactor (2^-10): the state's writers
  // (OpSpec::state_writers: dv = dS^T k, dk = dS v) and every initial state (a gate's gradient sums S dS),
  // the op's scale up by kLargeStateGradientScale (2^10) so the output (scale S^T q) keeps its size.
  large_state_gradient,
  // large_state's inputs with every incoming gradient times kLargeStateReader, the output's too (a small
  // loss, below): dq = scale S do keeps its usual size, while gsa's logit gradient scale p (dp - p . dp),
  // which dq reads through the state (dq_i = Hk_i dz_i), falls to 2^-17 of its usual size, among fp16's
  // subnormals.
  large_state_small_loss,
  // Every incoming gradient (the outputs' and the final states') times kSmallFactor (2^-10): a loss that
  // fp16 training has not scaled up. Every gradient is then 2^-10 times its usual size, still in fp16's
  // normal range, but an intermediate smaller than the gradients it feeds (gsa's logit gradient scale p
  // (dp - p . dp): p sums to 1 over the slots) falls among fp16's subnormals, where a kernel that stores it
  // in fp16 keeps only a few of its bits.
  small_loss,
};
inline constexpr float kLargeState = 131072.0f;
inline constexpr float kLargeStateReader = 1.0f / 1024.0f;
inline constexpr double kLargeStateScale = 1.0 / 128.0;
static_assert(kLargeState * kLargeStateReader * kLargeStateScale == 1.0);
inline constexpr float kLargeStateGradient = 131072.0f;
inline constexpr float kSmallFactor = 1.0f / 1024.0f;
inline constexpr double kLargeStateGradientScale = 1024.0;
static_assert(kSmallFactor * kLargeStateGradientScale == 1.0);
// "large_state", "large_state_gradient", "large_state_small_loss", "small_loss" (a case name's last part);
// "" for usual
std::string_view magnitude_name(Magnitude magnitude);

enum class DecayScenario {
  typical,    // as the op's generator draws them
  near_zero,  // every log decay -1e-6 (rounded to the dtype)
  floor,      // every log decay at the op's floor
  mixed,      // each element drawn from {-1e-6, typical, floor}
  beyond,     // every log decay at kBeyondLogDecay (-5), past the floor of an op whose layer bounds it above
              // that (rwkv7's -0.6065): what a kernel does with decays its layer never makes
};

// What a case measures.
enum class Probe {
  reference,         // the variant against the fp64 reference
  handoff,           // prefix with `variant`, suffix with `second` from the prefix's final state, against the
                     // reference
  cross,             // `second` against `variant` on the same inputs
  inputs_unchanged,  // input bytes after forward and backward
  writes_all,        // output and gradient elements left as they were before the call
  deterministic,     // two calls on the same inputs
};

struct BatteryCase {
  Family family = Family::accuracy;
  Probe probe = Probe::reference;
  DecayScenario decay = DecayScenario::typical;
  const OpSpec* op = nullptr;
  const Variant* variant = nullptr;
  const Variant* second = nullptr;  // handoff: the suffix's variant; cross: the variant compared
  Problem problem{};
  Mode mode = Mode::fwdbwd;
  std::int64_t split = 0;  // handoff: tokens of the prefix
  Magnitude magnitude = Magnitude::usual;
  // The shared memory a block the variants plan for (SharedMemoryCap), a smaller GPU's; 0: the device's own.
  std::size_t shared_memory_cap = 0;
  std::string name{};
  std::optional<std::string> skip_reason{};
};

struct BatterySpec {
  std::string filter;  // ECMAScript regex searched in case names; empty selects all
  Backend backend = Backend::cuda;
  DeviceLimits limits;
  bool long_sequences = true;  // the 24,576-token shapes (the fp64 reference takes seconds per case)
};

// The variant part of a case name: "naive", or a pair "naive>fused_recurrent" (handoff),
// "naive~fused_recurrent" (cross).
std::string variant_label(const BatteryCase& c);

// `problem` at the chunk size `variant` runs (the cases of a pair hold the first variant's).
Problem with_chunk_of(Problem problem, const Variant& variant);

// The record of a case before it runs: names, axes and family.
CaseRecord battery_record(const BatteryCase& c);

// Every selected case, in order. Throws UsageError for a bad regex.
std::vector<BatteryCase> battery_cases(const Registry& registry, const BatterySpec& spec);

// The limits case `c`'s variants plan for on `device`: its shared memory capped where the case is planned for
// a smaller GPU (BatteryCase::shared_memory_cap).
DeviceLimits planned_limits(const BatteryCase& c, DeviceLimits device);

// Runs battery cases one at a time, sharing inputs and fp64 references between consecutive cases that use the
// same ones (a worker process keeps one for its life). A failed case's record says by how much and carries
// the command that reproduces it alone: `reproduce_prefix` with the case's filter and the seed.
class BatteryRunner {
 public:
  BatteryRunner(Device& device, std::uint64_t seed, std::string reproduce_prefix);
  ~BatteryRunner();
  BatteryRunner(const BatteryRunner&) = delete;
  BatteryRunner& operator=(const BatteryRunner&) = delete;
  CaseRecord run(const BatteryCase& c);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Runs the cases in order with one BatteryRunner and reports each record as it finishes; `reproduce_prefix`
// is e.g. "fla-bench check --device cuda:0".
RunSummary run_battery(Device& device, const std::vector<BatteryCase>& cases, std::uint64_t seed,
                       const std::string& reproduce_prefix, Reporter& reporter);

}  // namespace flabench
