// Which cases each family of the check battery holds.
#include <algorithm>

#include "suites/battery.h"
#include "suites/cases.h"

namespace flabench {
namespace {

struct Dims {
  std::int64_t B, T, H, K, V;
  std::int64_t M = 0, G = 0;  // slots and query groups; 0: the op's default (its first slot count, G = 1)
};

// accuracy: a typical shape in both modes, and the other common head dim.
constexpr Dims kAccuracy[] = {{2, 65, 3, 64, 64}, {1, 33, 2, 128, 128}};
// decay, hygiene, state handoff: small, K != V, T one past a chunk and checkpoint boundary.
constexpr Dims kSmall{2, 65, 2, 64, 32};
// decay, on a GPU: fwd+bwd where the kernels made for head dims of 64 and 128 alone run, over three chunks.
constexpr Dims kDecayWide{2, 130, 2, 128, 128};
// shapes: K != V both ways, T around the chunk (16) and checkpoint (64) boundaries and odd primes, B*H = 1,
// the other head dims a variant may claim.
constexpr Dims kShapes[] = {{2, 65, 2, 64, 16},  {2, 65, 2, 16, 64}, {2, 65, 2, 128, 64}, {2, 65, 2, 64, 128},
                            {1, 1, 2, 64, 64},   {1, 15, 2, 64, 64}, {1, 16, 2, 64, 64},  {1, 17, 2, 64, 64},
                            {1, 31, 2, 64, 64},  {1, 63, 2, 64, 64}, {1, 64, 2, 64, 64},  {1, 65, 2, 64, 64},
                            {1, 97, 2, 64, 64},  {1, 65, 1, 64, 64}, {1, 33, 2, 16, 16},  {1, 33, 2, 32, 32},
                            {1, 33, 2, 256, 256}};
constexpr Dims kLongShape{1, 24576, 1, 64, 64};
// shapes, on a GPU: enough heads that a kernel sizing its layout by the GPU takes its wide ones (on an H100
// the fused_recurrent column passes take 8 keys per lane at K = 64 and, past about 32 heads, two columns per
// lane at K = 128; the row pass 16 values per lane), where the small shapes above take the thin ones
// (tests/kernels/fused_layout_test.cpp checks that every layout is reached).
constexpr Dims kManyHeads[] = {{4, 37, 16, 64, 64}, {2, 37, 16, 128, 128}, {4, 37, 16, 128, 128}};
// and a chunked variant's forward, alone and before a backward, at many heads over several chunks (the last
// one short): the one-kernel chunk forwards on a Hopper run only where their blocks fill more than half the
// SMs (kernels/common/chunk/fused_plan.h), of 32 values where blocks of 64 would fill at most half, of 64
// past that, at K = 64 (gla's, rwkv6's and simple_gla's) and 128 (simple_gla's): a shape for each, its chunks
// passed between warpgroups more than once (tests/kernels/{scalar,prepared}_fused_layout_test.cpp). Each
// also fwd+bwd, where simple_gla's kernel runs the backward's passes (in reverse from the last chunk too).
constexpr Dims kManyHeadsChunks[] = {
    {3, 130, 16, 64, 64}, {8, 130, 16, 64, 64}, {2, 130, 16, 128, 128}, {4, 130, 16, 128, 128}};
// and a chunked variant's forward alone at the lengths around a chunk's (a forward no backward follows may
// take a path of its own: kernels/common/chunk/variant.cuh), K != V among them, over many chunks, and with a
// large initial state; at heads enough for the one-kernel forwards on a Hopper.
constexpr Dims kChunkEdgesForward[] = {{1, 1, 48, 64, 64},   {1, 63, 48, 64, 64},  {1, 64, 48, 64, 64},
                                       {1, 65, 48, 64, 64},  {1, 97, 48, 64, 64},  {2, 65, 48, 64, 32},
                                       {2, 65, 48, 128, 64}, {1, 1100, 48, 64, 64}};
constexpr Dims kLargeStateForward{1, 65, 48, 64, 64};
// and fwd+bwd at those heads over two chunks (the last of one token) and eighteen: simple_gla's reverse
// passes of its one-kernel forward walk the ring of stages from the end (chunk_fused_forward.cu).
constexpr Dims kChunkEdgesBackward[] = {{1, 65, 48, 64, 64}, {1, 1100, 48, 64, 64}};
// and fwd+bwd at those heads with K != V both ways and, in the decay family, every decay scenario: where
// simple_gla's backward runs as passes of its one-kernel forward, dq's and dk's in the state's transpose
// (kernels/simple_gla/chunk_fused_forward.cu, simple_gla_fused_backward), which the small shapes never reach;
// and at V = 32, where the one-kernel forward runs but those passes do not (32 keys in the transpose): its
// reverse scan and the states it saves.
constexpr Dims kChunkPassesBackward[] = {{2, 130, 48, 64, 128}, {2, 130, 48, 128, 64}, {2, 130, 48, 64, 32}};
constexpr Dims kChunkDecaysBackward{2, 130, 48, 64, 64};
// and a chunked variant at few heads over many chunks: simple_gla's one-kernel forward on a Hopper splits
// the sequence into segments where its blocks fill at most half the SMs, from start states the scan makes in
// runs (kernels/common/chunk/fused_plan.h, plan_fused_segments): at K = 64 several runs a segment and a
// shorter last segment ending in a partial chunk, at K = 128 two segments; forward alone and before a
// backward (which reads the states it saves).
constexpr Dims kSequenceSegments[] = {{1, 4100, 16, 64, 64}, {1, 1100, 2, 128, 128}};
// and for ops with slots, the slot counts besides the default with enough heads that their state passes
// 2^19 elements (B H M (K + V)), where gsa's fp32 fused backward runs as scans instead of in chunk form
// (kernels/gsa/fused_plan.h), each slot count its own query-gradient kernel there.
constexpr Dims kManySlotHeads[] = {{8, 37, 16, 64, 64, 32, 1}, {4, 37, 16, 64, 64, 128, 1}};
// shapes, on a GPU: sequences long enough that a variant may pipeline its passes over segments of them, a
// segment's tokens of both sequences at once, the last one short (gsa's fused forward and backward:
// kernels/gsa/gla_passes_plan.h); and the forward alone of a variant with a backward, since a forward no
// backward follows may take a path of its own.
constexpr Dims kSegmented{2, 4100, 2, 64, 64};
// shapes, on a GPU, planned for each of kSmallerGpuSharedMemory a block: where a variant picks its kernels by
// the room a block has, those a smaller GPU runs. On an RTX 40xx's 99 KiB fused_recurrent's fwd+bwd of gla,
// rwkv6 and simple_gla runs the scans' backward in fp32 at K = 64 and simple_gla's in bf16 at K = 256 (the
// chunk form's blocks do not fit), which a Hopper takes at no shape: its passes side by side (few heads),
// one after the other (many) and over segments (a long sequence); tests/kernels/fused_layout_test.cpp
// checks that each is reached. Many heads at K = 128 take two columns a lane on a Hopper, one where those do
// not fit 99 KiB (fused_recurrent's geometry_within). An A100's 163 KiB holds fewer of the 32-token column
// chunks and converter warps a Hopper takes at K = 128 (rwkv7's bf16 ones need 172 KiB).
constexpr Dims kSmallerGpu[] = {{1, 33, 2, 64, 128},
                                {4, 37, 16, 64, 64},
                                {2, 1100, 2, 64, 64},
                                {4, 37, 16, 128, 128},
                                {1, 33, 2, 256, 256}};
// and a forward alone at K = 128 with many heads (two columns a lane on a Hopper's room, one on 99 KiB).
constexpr Dims kSmallerGpuForward{4, 37, 16, 128, 128};
// and for ops with slots, M = 128, where gsa's 16-bit fused fwd+bwd ran its own scans until gsa version 55
// let its chunk form fit there (kernels/notes/gsa.md, versions 48 and 55).
constexpr Dims kSmallerGpuSlots[] = {{2, 65, 2, 64, 64, 128, 1}};
// shapes, for ops with slots (gsa): M below, at and above the default, K != M both ways, grouped queries.
constexpr Dims kSlotShapes[] = {{2, 65, 2, 64, 64, 32, 1},
                                {2, 65, 2, 64, 64, 128, 1},
                                {1, 33, 2, 128, 64, 32, 1},
                                {1, 33, 2, 16, 64, 64, 1},
                                {2, 65, 2, 64, 32, 64, 4}};
// and on a GPU, K = V = M = 128: gsa chunk's fp32 fwd+bwd at C = 64 fits a Hopper there since gsa version 55
// (a logit-gradient block of 218.5 KiB; kernels/notes/gsa.md).
constexpr Dims kWideSlots{1, 33, 2, 128, 128, 128, 1};
// state: the initial state's path with K != V both ways; T = 17 crosses one chunk boundary.
constexpr Dims kInitialState[] = {{2, 17, 2, 64, 16}, {2, 17, 2, 16, 64}, {2, 17, 2, 64, 64}};
// state handoff: a prefix of `split` tokens by one variant, the rest by another from its final state. Short
// splits of kSmall's 65 tokens, and inference as it runs: a 2048-token prefill, then 61 decode steps
// (chunked prefill against recurrent decode is where FLA's rwkv7 kernels drift apart).
struct Handoff {
  Dims dims;
  std::int64_t split;
  const char* label;
};
constexpr Handoff kHandoffs[] = {{kSmall, 40, "prefill40"},
                                 {kSmall, 64, "prefill64"},
                                 {kSmall, 1, "prefill1"},
                                 {{1, 2048 + 61, 2, 64, 64}, 2048, "prefill2048_decode"}};

std::optional<std::string> decay_skip_reason(const BatteryCase& c, const Variant& v) {
  if (c.decay == DecayScenario::typical) return std::nullopt;
  if (c.op->log_decay.empty()) return c.op->name + " has no log decay";
  const double deepest = c.decay == DecayScenario::beyond ? kBeyondLogDecay : c.op->log_decay_floor;
  if (c.decay != DecayScenario::near_zero && deepest < v.support.log_decay_floor)
    return v.name + " is made for log decays down to " + std::to_string(v.support.log_decay_floor);
  return std::nullopt;
}

// The op's scale in a magnitude scenario, relative to its default.
double scale_factor(Magnitude magnitude) {
  switch (magnitude) {
    case Magnitude::usual:
    case Magnitude::small_loss:
      return 1.0;
    case Magnitude::large_state:
    case Magnitude::large_state_small_loss:
      return kLargeStateScale;
    case Magnitude::large_state_gradient:
      return kLargeStateGradientScale;
  }
  return 1.0;
}

// Why a state magnitude scenario cannot be set up for the case's op: it needs a state and the inputs to
// scale against it. (The small loss needs only a backward: it is made only where there is one.)
std::optional<std::string> magnitude_skip_reason(const BatteryCase& c) {
  if (c.magnitude == Magnitude::usual || c.magnitude == Magnitude::small_loss) return std::nullopt;
  if (c.op->states.empty()) return c.op->name + " has no recurrent state to make large";
  if ((c.magnitude == Magnitude::large_state || c.magnitude == Magnitude::large_state_small_loss) &&
      c.op->state_reader.empty())
    return c.op->name + " has no state read linearly through an input to scale down against it";
  if (c.magnitude == Magnitude::large_state_gradient && c.op->state_writers.empty())
    return c.op->name + " names no inputs that write its state, to scale down against its gradient";
  return std::nullopt;
}

struct Builder {
  const BatterySpec& spec;
  const std::optional<std::regex>& filter;
  std::vector<BatteryCase>& out;

  // `c` holds family, probe, decay, op, variants, mode and split; this adds the shape, name and skip reason.
  // A chunk size of 0 is the variant's default; a chunked single variant's name carries its chunk size.
  void add(BatteryCase c, Dims d, DType dtype, const std::string& probe_name, int chunk_size = 0) {
    c.problem = Problem{
        d.B, d.T, d.H, d.K, d.V, dtype, chunk_size > 0 ? chunk_size : c.variant->support.default_chunk_size};
    c.problem.M = d.M > 0 ? d.M : c.op->slots.empty() ? 0 : c.op->slots.front();
    c.problem.G = d.G > 0 ? d.G : 1;
    c.problem.scale = c.op->default_scale(c.problem) * scale_factor(c.magnitude);
    c.name = std::string(family_name(c.family)) + "/" + c.op->name + "/" + variant_label(c) + "/" +
             std::string(mode_name(c.mode)) + "/" + std::string(dtype_name(dtype)) + "/" +
             shape_label(c.problem) + "/" + (chunk_size > 0 ? "C" + std::to_string(chunk_size) + "/" : "") +
             probe_name;
    if (filter && !std::regex_search(c.name, *filter)) return;
    const DeviceLimits limits = planned_limits(c, spec.limits);
    for (const Variant* v : {c.variant, c.second}) {
      if (!v || c.skip_reason) continue;
      c.skip_reason =
          why_unsupported(*v, v == c.variant ? c.problem : with_chunk_of(c.problem, *v), c.mode, limits);
      if (!c.skip_reason) c.skip_reason = decay_skip_reason(c, *v);
    }
    if (!c.skip_reason && c.probe == Probe::handoff && c.op->states.empty())
      c.skip_reason = c.op->name + " has no recurrent state to hand over";
    if (!c.skip_reason) c.skip_reason = magnitude_skip_reason(c);
    if (!c.skip_reason && d.T == kLongShape.T && !spec.long_sequences)
      c.skip_reason = "24,576-token checks left out by --no-long";
    out.push_back(std::move(c));
  }

  // Every family at every chunk size the variant takes (chunk-size bugs hide at the sizes not tried).
  void add_single_variant_families(const OpSpec& op, const Variant& v, DType dtype) {
    if (v.support.chunk_sizes.empty()) return add_single_variant_families(op, v, dtype, 0);
    for (int chunk_size : v.support.chunk_sizes) add_single_variant_families(op, v, dtype, chunk_size);
  }

  void add_single_variant_families(const OpSpec& op, const Variant& v, DType dtype, int chunk_size) {
    const auto add_here = [&](const BatteryCase& c, const Dims& d, const std::string& probe_name) {
      this->add(c, d, dtype, probe_name, chunk_size);
    };
    // Forward and backward, and the forward alone at the typical shape; a forward-only variant gets every
    // family on its forward (skipping them would leave its decays, shapes and hygiene unchecked).
    const BatteryCase base{.op = &op, .variant = &v, .mode = v.support.backward ? Mode::fwdbwd : Mode::fwd};
    BatteryCase c = base;
    c.mode = Mode::fwd;
    if (v.support.backward) add_here(c, kAccuracy[0], "reference");
    for (const Dims& d : kAccuracy) add_here(base, d, "reference");
    if (v.support.backward) {  // every incoming gradient small
      c = base;
      c.magnitude = Magnitude::small_loss;
      add_here(c, kSmall, std::string(magnitude_name(c.magnitude)));
    }

    c = base;
    c.family = Family::decay;
    const std::pair<DecayScenario, const char*> decays[] = {{DecayScenario::near_zero, "near_zero"},
                                                            {DecayScenario::floor, "floor"},
                                                            {DecayScenario::mixed, "mixed"}};
    // each scenario, and past the op's floor where it has one, on `shape`, the case names ending in `suffix`
    const auto add_decays = [&](BatteryCase scenario, const Dims& shape, const std::string& suffix) {
      for (const auto& [decay, name] : decays) {
        scenario.decay = decay;
        add_here(scenario, shape, name + suffix);
      }
      if (op.log_decay_floor > kBeyondLogDecay) {
        scenario.decay = DecayScenario::beyond;
        add_here(scenario, shape, "beyond_floor" + suffix);
      }
    };
    add_decays(c, kSmall, "");
    if (spec.backend == Backend::cuda && v.support.backward) {
      // and, on a GPU, fwd+bwd at K = V = 128 over three chunks (the last of two tokens): kSmall's 32 values
      // never reach the backwards made only for head dims of 64 or 128 (simple_gla's bf16 gradients kernel
      // on wgmma at C = 64 on a Hopper: kernels/simple_gla/chunk_grads_wgmma.h)
      add_decays(c, kDecayWide, "_wide");
      if (!v.support.chunk_sizes.empty()) add_decays(c, kChunkDecaysBackward, "_many_heads_chunks");
      // and the forward alone at many heads and K = 128 and 64, where a forward no backward follows may take
      // a path of its own (rwkv7's bf16 fused forward at K = 128: two columns a lane, by
      // plain_forward_takes_two_columns in kernels/common/fused_recurrent/layout.h; the one-kernel chunk
      // forwards on a Hopper, gla's and rwkv6's at K = 64), which the decay cases above, fwd+bwd, never reach
      BatteryCase forward = c;
      forward.mode = Mode::fwd;
      for (const Dims& d : {kManyHeads[1], kManyHeads[0]}) add_decays(forward, d, "_forward_only");
      // and, for a chunked variant, near-zero log decays at the sequence segments' shapes, where the
      // one-kernel chunk forwards split the sequence and simple_gla's backward runs its reverse scan in runs:
      // the state carries over the whole sequence there, so a segment's or a run's start state that is wrong
      // shows. Typical decays forget a state within a chunk: with them the backward's runs gave the one-run
      // scan's errors bit for bit, a wrong start would too (kernels/notes/chunk.md, version 124).
      if (!v.support.chunk_sizes.empty()) {
        BatteryCase carried = c;
        carried.decay = DecayScenario::near_zero;
        for (const Mode mode : {Mode::fwdbwd, Mode::fwd}) {
          carried.mode = mode;
          for (const Dims& d : kSequenceSegments)
            add_here(carried, d,
                     mode == Mode::fwd ? "near_zero_segments_forward_only" : "near_zero_segments");
        }
      }
    }

    c = base;
    c.family = Family::shapes;
    for (const Dims& d : kShapes) add_here(c, d, "reference");
    if (!op.slots.empty())
      for (const Dims& d : kSlotShapes) add_here(c, d, "reference");
    if (spec.backend == Backend::cuda) {
      for (const Dims& d : kManyHeads) add_here(c, d, "many_heads");
      if (!op.slots.empty()) {
        for (const Dims& d : kManySlotHeads) add_here(c, d, "many_heads");
        add_here(c, kWideSlots, "reference");
      }
      add_here(c, kLongShape, "reference");
      add_here(c, kSegmented, "segments");
      if (!v.support.chunk_sizes.empty() && v.support.backward) {
        for (const Dims& d : kManyHeadsChunks) add_here(c, d, "many_heads_chunks");
        for (const Dims& d : kChunkEdgesBackward) add_here(c, d, "chunk_edges");
        for (const Dims& d : kChunkPassesBackward) add_here(c, d, "many_heads_chunks");
        for (const Dims& d : kSequenceSegments) add_here(c, d, "sequence_segments");
      }
      for (const std::size_t room : kSmallerGpuSharedMemory) {
        BatteryCase smaller = c;
        smaller.shared_memory_cap = room;
        const std::string probe = "shared_memory_" + std::to_string(room / 1024) + "KiB";
        for (const Dims& d : kSmallerGpu) add_here(smaller, d, probe);
        if (!op.slots.empty())
          for (const Dims& d : kSmallerGpuSlots) add_here(smaller, d, probe);
        // where a smaller GPU takes the forward alone but not the backward (rwkv7's fused at K = V = 128)
        if (v.support.backward) {
          smaller.mode = Mode::fwd;
          add_here(smaller, kSmallerGpuForward, probe);
        }
      }
      if (v.support.backward) {  // the forward alone where no backward follows (a path of its own)
        BatteryCase forward = c;
        forward.mode = Mode::fwd;
        add_here(forward, kSegmented, "forward_only");
        // and at many heads: fused_recurrent's plain bf16 forward at 8 keys a lane (K = 64 there) sums its
        // outputs over K four at a time (kernels/common/fused_recurrent/forward.cuh)
        for (const Dims& d : kManyHeads) add_here(forward, d, "many_heads_forward_only");
        if (!v.support.chunk_sizes.empty()) {
          for (const Dims& d : kManyHeadsChunks) add_here(forward, d, "many_heads_chunks_forward_only");
          for (const Dims& d : kChunkEdgesForward) add_here(forward, d, "forward_only");
          for (const Dims& d : kSequenceSegments) add_here(forward, d, "sequence_segments_forward_only");
          BatteryCase large = forward;
          large.family = Family::state;
          large.magnitude = Magnitude::large_state;
          add_here(large, kLargeStateForward, "large_state_forward_only");
        }
      }
    }

    c = base;
    c.family = Family::state;
    c.decay = DecayScenario::near_zero;
    for (const Dims& d : kInitialState) add_here(c, d, "initial_state");
    for (Magnitude magnitude : {Magnitude::large_state, Magnitude::large_state_gradient}) {
      c.magnitude = magnitude;
      add_here(c, kSmall, std::string(magnitude_name(magnitude)));
    }
    if (v.support.backward) {  // a forward alone reads no incoming gradient: it would be large_state again
      c.magnitude = Magnitude::large_state_small_loss;
      add_here(c, kSmall, std::string(magnitude_name(c.magnitude)));
    }

    c = base;
    c.family = Family::hygiene;
    const std::pair<Probe, const char*> hygiene[] = {{Probe::inputs_unchanged, "inputs_unchanged"},
                                                     {Probe::writes_all, "writes_all"},
                                                     {Probe::deterministic, "deterministic"}};
    for (const auto& [probe, name] : hygiene) {
      c.probe = probe;
      add_here(c, kSmall, name);
    }
  }

  void add_pair_families(const OpSpec& op, const std::vector<const Variant*>& variants, DType dtype) {
    for (const Variant* prefix : variants) {
      for (const Variant* suffix : variants) {
        for (const Handoff& handoff : kHandoffs) {
          add({.family = Family::state,
               .probe = Probe::handoff,
               .op = &op,
               .variant = prefix,
               .second = suffix,
               .mode = Mode::fwd,
               .split = handoff.split},
              handoff.dims, dtype, handoff.label);
        }
      }
    }
    for (std::size_t i = 0; i < variants.size(); ++i)
      for (std::size_t j = i + 1; j < variants.size(); ++j)
        add({.family = Family::cross,
             .probe = Probe::cross,
             .op = &op,
             .variant = variants[i],
             .second = variants[j],
             // forward and backward where both have a backward; a forward-only variant still meets its peers
             .mode =
                 variants[i]->support.backward && variants[j]->support.backward ? Mode::fwdbwd : Mode::fwd},
            kAccuracy[0], dtype, "same_inputs");
  }
};

}  // namespace

std::string variant_label(const BatteryCase& c) {
  if (!c.second) return c.variant->name;
  return c.variant->name + (c.probe == Probe::handoff ? ">" : "~") + c.second->name;
}

Problem with_chunk_of(Problem problem, const Variant& variant) {
  problem.chunk_size = variant.support.default_chunk_size;
  return problem;
}

std::string_view family_name(Family family) {
  switch (family) {
    case Family::accuracy:
      return "accuracy";
    case Family::decay:
      return "decay";
    case Family::shapes:
      return "shapes";
    case Family::state:
      return "state";
    case Family::cross:
      return "cross";
    case Family::hygiene:
      return "hygiene";
  }
  return "?";
}

std::string_view magnitude_name(Magnitude magnitude) {
  switch (magnitude) {
    case Magnitude::usual:
      return "";
    case Magnitude::large_state:
      return "large_state";
    case Magnitude::large_state_gradient:
      return "large_state_gradient";
    case Magnitude::large_state_small_loss:
      return "large_state_small_loss";
    case Magnitude::small_loss:
      return "small_loss";
  }
  return "?";
}

DeviceLimits planned_limits(const BatteryCase& c, DeviceLimits device) {
  if (c.shared_memory_cap)
    device.shared_memory_per_block = std::min(device.shared_memory_per_block, c.shared_memory_cap);
  return device;
}

std::vector<BatteryCase> battery_cases(const Registry& registry, const BatterySpec& spec) {
  const std::optional<std::regex> filter = compile_filter(spec.filter);
  std::vector<BatteryCase> cases;
  Builder builder{spec, filter, cases};
  for (const OpSpec* op : registry.ops()) {
    std::vector<const Variant*> variants;
    for (const Variant* v : registry.variants_of(op->name))
      if (v->backend == spec.backend) variants.push_back(v);
    for (DType dtype : kAllDTypes) {
      for (const Variant* v : variants) builder.add_single_variant_families(*op, *v, dtype);
      builder.add_pair_families(*op, variants, dtype);
    }
  }
  return cases;
}

}  // namespace flabench
