// The check battery fires on each fault it exists for: test-only variants of gla (never registered in the
// product) plant one fault each, and the battery must name the family and tensor that catch it.
#include "suites/battery.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "kernels/common/reference_variant.h"
#include "suites/battery_probes.h"
#include "suites/usage_error.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

struct BatteryOutcome {
  RunSummary summary;
  std::vector<CaseRecord> records;

  std::vector<CaseRecord> failed() const {
    std::vector<CaseRecord> out;
    std::copy_if(records.begin(), records.end(), std::back_inserter(out),
                 [](const CaseRecord& r) { return r.status == CaseStatus::failed; });
    return out;
  }
  std::set<std::string> failed_families() const {
    std::set<std::string> families;
    for (const CaseRecord& r : failed()) families.insert(r.family);
    return families;
  }
};

BatteryOutcome run_on_cpu(const Registry& registry, const std::string& filter) {
  const std::vector<BatteryCase> cases = battery_cases(registry, {filter, Backend::cpu, {}, false});
  EXPECT_FALSE(cases.empty()) << filter;
  const std::unique_ptr<Device> cpu = open_cpu_device();
  RecordCollector collector;
  const RunSummary summary = run_battery(*cpu, cases, 7, "fla-bench check --device cpu", collector);
  return {summary, collector.records};
}

// gla with its reference variant and one test-only variant, "faulty": the reference with `plant` applied.
class FaultyGla {
 public:
  explicit FaultyGla(const std::function<void(Variant&)>& plant) {
    const OpSpec& op = registry.add_op(testing::op_named("gla"));
    registry.add_variant(make_reference_variant(op));
    Variant faulty = make_reference_variant(op);
    faulty.name = "faulty";
    plant(faulty);
    registry.add_variant(std::move(faulty));
  }
  Registry registry;
};

// The fault of a forward-only variant: no backward at all.
void without_backward(Variant& v) {
  v.support.backward = false;
  v.backward = nullptr;
}

// Applies `edit` to a host tensor's values.
void edit_tensor(const Tensor& tensor, const std::function<void(Array64&)>& edit) {
  Array64 values = decode_tensor(tensor);
  edit(values);
  encode_tensor(values, tensor);
}

// What staging values for the tensor cores as two fp16 parts (high + low) does to them, as far as the
// battery's magnitude cases go: an element past 65504 becomes inf. Elsewhere the values are kept (the
// parts hold ~22 bits of an ordinary value; at 2^-10 times one, the low part's subnormal rounding is a
// precision matter that these tests leave out).
void overflow_as_fp16_parts(Array64& tensor) {
  for (double& x : tensor.values) {
    const float high = round_to_dtype(DType::fp16, static_cast<float>(x));
    if (std::isinf(high)) x = high;
  }
}

const TensorCheckRecord* failing_tensor(const CaseRecord& r) {
  if (!r.check) return nullptr;
  for (const TensorCheckRecord& t : r.check->tensors)
    if (!t.passed) return &t;
  return nullptr;
}

// A state-family case of op `name` at a small fp16 shape (fwd+bwd) in the given magnitude scenario.
BatteryCase small_state_case(const char* name, Magnitude magnitude = Magnitude::usual) {
  BatteryCase c{.family = Family::state, .op = &testing::op_named(name), .magnitude = magnitude};
  c.problem = Problem{1, 5, 1, 16, 16, DType::fp16, 16};
  c.problem.M = c.op->slots.empty() ? 0 : c.op->slots.front();
  c.problem.G = 1;
  c.problem.scale = c.op->default_scale(c.problem);
  c.mode = Mode::fwdbwd;
  return c;
}

// The one ratio a / b that every element has, or NaN where they differ. Elements of b under 2^-4 are left
// out: scaled by 2^-10 they are fp16 subnormals, which round.
float uniform_ratio(const HostValues& a, const HostValues& b) {
  EXPECT_EQ(a.values.size(), b.values.size());
  float ratio = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (std::abs(b.values[i]) < 0.0625f) continue;
    const float r = a.values[i] / b.values[i];
    if (ratio != 0 && r != ratio) return std::nanf("");
    ratio = r;
  }
  return ratio;
}

// Whether `gradient` is the incoming gradient of one of the op's final states.
bool of_a_final_state(const OpSpec& op, const std::string& gradient) {
  return std::any_of(op.states.begin(), op.states.end(),
                     [&](const auto& state) { return gradient == "d" + state.second; });
}

// The battery's `magnitude` cases: every op of the product registry has one, none skipped, each at the
// op's default scale times `scale_factor`.
void expect_every_op_gets(Magnitude magnitude, double scale_factor) {
  const std::string probe(magnitude_name(magnitude));
  std::set<std::string> ops;
  for (const BatteryCase& c :
       battery_cases(product_registry(), {"/" + probe + "$", Backend::cpu, {}, false})) {
    ops.insert(c.op->name);
    EXPECT_EQ(c.magnitude, magnitude) << c.name;
    EXPECT_DOUBLE_EQ(c.problem.scale, c.op->default_scale(c.problem) * scale_factor) << c.name;
    EXPECT_FALSE(c.skip_reason) << c.name << ": " << *c.skip_reason;
  }
  EXPECT_EQ(ops, (std::set<std::string>{"gla", "gsa", "rwkv6", "rwkv7", "simple_gla"})) << probe;
}

// The registry's single op gets its `magnitude` case once a dtype, each skipped with a reason holding `why`.
void expect_skipped_with(const Registry& registry, Magnitude magnitude, const std::string& why) {
  const std::string probe(magnitude_name(magnitude));
  const std::vector<BatteryCase> cases = battery_cases(registry, {probe + "$", Backend::cpu, {}, false});
  ASSERT_EQ(cases.size(), 3u);  // one a dtype
  for (const BatteryCase& c : cases) {
    ASSERT_TRUE(c.skip_reason) << c.name;
    EXPECT_NE(c.skip_reason->find(why), std::string::npos) << *c.skip_reason;
  }
}

// Runs `call` with `tensor` (an input or an incoming gradient) edited, then puts it back as it came: the
// hygiene family checks that a variant leaves its inputs unchanged.
void call_with_edited(const Tensor& tensor, const std::function<void(Array64&)>& edit,
                      const std::function<void()>& call) {
  const Array64 original = decode_tensor(tensor);
  edit_tensor(tensor, edit);
  call();
  encode_tensor(original, tensor);
}

// gla's battery on the CPU fails exactly the state family's `probes` cases of every dtype, each with
// non-finite values.
void expect_only_the_state_cases_fail_with_inf(const Registry& registry,
                                               std::initializer_list<const char*> probes) {
  const BatteryOutcome outcome = run_on_cpu(registry, "/gla/");
  EXPECT_EQ(outcome.failed_families(), std::set<std::string>{"state"});
  std::set<std::string> names;
  for (const CaseRecord& r : outcome.failed()) {
    names.insert(r.name);
    EXPECT_GT(failing_tensor(r)->nonfinite, 0) << r.name;
  }
  std::set<std::string> expected;
  for (const char* probe : probes)
    for (const char* dtype : {"fp32", "fp16", "bf16"})
      expected.insert(std::string("state/gla/faulty/fwdbwd/") + dtype + "/B2-T65-H2-K64-V32/" + probe);
  EXPECT_EQ(names, expected);
}

TEST(Battery, TheProductReferencePassesEveryCheckOnTheCpu) {
  const BatteryOutcome outcome = run_on_cpu(product_registry(), "");
  EXPECT_EQ(outcome.summary.failed, 0);
  for (const CaseRecord& r : outcome.failed()) ADD_FAILURE() << r.name << ": " << r.reason;
  const std::set<std::string> families = [&] {
    std::set<std::string> all;
    for (const CaseRecord& r : outcome.records) all.insert(r.family);
    return all;
  }();
  // the cpu backend has one variant per op, so no cross pairs
  EXPECT_EQ(families, (std::set<std::string>{"accuracy", "decay", "shapes", "state", "hygiene"}));
}

TEST(Battery, TheGsaReferencePassesWithItsSlotShapesAndTwoStates) {
  const BatteryOutcome outcome = run_on_cpu(product_registry(), "/gsa/.*/fp32/");
  EXPECT_EQ(outcome.summary.failed, 0);
  for (const CaseRecord& r : outcome.failed()) ADD_FAILURE() << r.name << ": " << r.reason;
  const auto ran = [&](const std::string& name) {
    return std::any_of(outcome.records.begin(), outcome.records.end(),
                       [&](const CaseRecord& r) { return r.name == name && r.status == CaseStatus::ok; });
  };
  EXPECT_TRUE(ran("shapes/gsa/reference/fwdbwd/fp32/B2-T65-H2-K64-V32-M64-G4/reference"));  // grouped queries
  EXPECT_TRUE(ran("shapes/gsa/reference/fwdbwd/fp32/B1-T33-H2-K128-V64-M32/reference"));    // K != M
  EXPECT_TRUE(ran("state/gsa/reference>reference/fwd/fp32/B2-T65-H2-K64-V32-M64/prefill40"));  // hk and hv
  EXPECT_TRUE(ran("decay/gsa/reference/fwdbwd/fp32/B2-T65-H2-K64-V32-M64/floor"));
}

TEST(Battery, AllFamiliesRunOnAPairOfCorrectVariants) {
  const FaultyGla correct([](Variant&) {});
  const BatteryOutcome outcome = run_on_cpu(correct.registry, "/fp32/");
  EXPECT_EQ(outcome.summary.failed, 0);
  for (const CaseRecord& r : outcome.failed()) ADD_FAILURE() << r.name << ": " << r.reason;
  const auto named = [&](const std::string& name) {
    return std::any_of(outcome.records.begin(), outcome.records.end(),
                       [&](const CaseRecord& r) { return r.name == name && r.status == CaseStatus::ok; });
  };
  EXPECT_TRUE(named("cross/gla/reference~faulty/fwdbwd/fp32/B2-T65-H3-K64-V64/same_inputs"));
  EXPECT_TRUE(named("state/gla/faulty>reference/fwd/fp32/B2-T65-H2-K64-V32/prefill40"));
  EXPECT_TRUE(named("state/gla/reference>faulty/fwd/fp32/B2-T65-H2-K64-V32/prefill1"));
}

TEST(Battery, NamesAVariantThatMutatesAnInput) {
  const FaultyGla mutates([](Variant& v) {
    v.backward = [inner = v.backward](const BackwardCall& call) {
      inner(call);
      edit_tensor(call.inputs.at("k"), [](Array64& k) { k.values[5] += 1; });
    };
  });
  const BatteryOutcome outcome = run_on_cpu(mutates.registry, "/fp32/");
  const std::vector<CaseRecord> failed = outcome.failed();
  ASSERT_EQ(failed.size(), 1u);
  const CaseRecord& r = failed[0];
  EXPECT_EQ(r.name, "hygiene/gla/faulty/fwdbwd/fp32/B2-T65-H2-K64-V32/inputs_unchanged");
  ASSERT_NE(failing_tensor(r), nullptr);
  EXPECT_EQ(failing_tensor(r)->tensor, "k");
  EXPECT_EQ(failing_tensor(r)->detail, "1 of 16640 elements changed");
  EXPECT_EQ(r.reproduce, "fla-bench check --device cpu --filter '^" + r.name + "$' --seed 7");
}

TEST(Battery, NamesAVariantThatLeavesAnOutputElementUnwritten) {
  const FaultyGla unwritten([](Variant& v) {
    v.forward = [inner = v.forward](const ForwardCall& call) {
      const Tensor& o = call.outputs.at("o");
      std::byte* last = static_cast<std::byte*>(o.data) + o.bytes() - dtype_size(o.dtype);
      const std::vector<std::byte> before(last, last + dtype_size(o.dtype));
      inner(call);
      std::copy(before.begin(), before.end(), last);
    };
  });
  const BatteryOutcome outcome = run_on_cpu(unwritten.registry, "/fp32/");
  const std::vector<CaseRecord> failed = outcome.failed();
  const auto writes_all = std::find_if(failed.begin(), failed.end(), [](const CaseRecord& r) {
    return r.name == "hygiene/gla/faulty/fwdbwd/fp32/B2-T65-H2-K64-V32/writes_all";
  });
  ASSERT_NE(writes_all, failed.end());
  EXPECT_EQ(failing_tensor(*writes_all)->tensor, "o");
  EXPECT_EQ(failing_tensor(*writes_all)->detail, "1 of 8320 elements not written");
  // the poisoned element also fails every comparison of o, and nothing of the correct variant fails alone
  for (const CaseRecord& r : failed) EXPECT_NE(r.variant, "reference") << r.name;
  EXPECT_TRUE(outcome.failed_families().contains("accuracy"));
}

TEST(Battery, NamesANondeterministicVariantUnlessItSaysSo) {
  const auto plant = [](bool declared) {
    return [declared](Variant& v) {
      v.support.deterministic = !declared;
      // every other forward that saves for a backward (each fwd+bwd check also runs an inference forward)
      v.forward = [inner = v.forward, calls = std::make_shared<int>(0)](const ForwardCall& call) {
        inner(call);
        if (!call.save_for_backward) return;
        const int parity = ++*calls % 2;
        edit_tensor(call.outputs.at("o"), [&](Array64& o) { o.values[0] *= 1 + 0x1p-20 * parity; });
      };
    };
  };
  const FaultyGla silent(plant(false));
  const BatteryOutcome outcome = run_on_cpu(silent.registry, "/fp32/");
  const std::vector<CaseRecord> failed = outcome.failed();
  ASSERT_EQ(failed.size(), 1u);
  const CaseRecord& r = failed[0];
  EXPECT_EQ(r.name, "hygiene/gla/faulty/fwdbwd/fp32/B2-T65-H2-K64-V32/deterministic");
  EXPECT_EQ(failing_tensor(r)->tensor, "o");
  EXPECT_EQ(failing_tensor(r)->detail, "1 of 8320 elements differ");
  EXPECT_GT(failing_tensor(r)->max_abs, 0);  // the spread

  const FaultyGla declared(plant(true));
  const BatteryOutcome allowed = run_on_cpu(declared.registry, "/fp32/.*/deterministic$");
  EXPECT_EQ(allowed.summary.failed, 0);
  EXPECT_EQ(allowed.records.at(1).check->tensors.at(0).detail,
            "1 of 8320 elements differ (declared nondeterministic)");
}

TEST(Battery, NamesAVariantThatOverflowsAtLargeDecay) {
  // A chunked kernel's trap: exp(-G) * exp(G) with G the cumulative log decay within a 16-token chunk, in
  // fp32: at a log decay of -40, exp(-G) is inf and exp(G) is 0, so dk turns NaN.
  const FaultyGla overflows([](Variant& v) {
    v.backward = [inner = v.backward](const BackwardCall& call) {
      inner(call);
      const Problem& p = call.problem;
      const Array64 g = decode_tensor(call.inputs.at("g"));
      edit_tensor(call.grads.at("dk"), [&](Array64& dk) {
        for (std::int64_t row = 0; row < p.B; ++row)
          for (std::int64_t h = 0; h < p.H; ++h)
            for (std::int64_t k = 0; k < p.K; ++k) {
              float G = 0;
              for (std::int64_t t = 0; t < p.T; ++t) {
                const std::int64_t i = ((row * p.T + t) * p.H + h) * p.K + k;
                G = (t % 16 == 0 ? 0.0f : G) + static_cast<float>(g.values[i]);
                dk.values[i] *= std::exp(-G) * std::exp(G);
              }
            }
      });
    };
  });
  const BatteryOutcome outcome = run_on_cpu(overflows.registry, "/fp32/");
  EXPECT_EQ(outcome.failed_families(), std::set<std::string>{"decay"});
  std::set<std::string> names;
  for (const CaseRecord& r : outcome.failed()) {
    names.insert(r.name);
    EXPECT_EQ(failing_tensor(r)->tensor, "dk");
    EXPECT_GT(failing_tensor(r)->nonfinite, 0);
  }
  EXPECT_EQ(names, (std::set<std::string>{"decay/gla/faulty/fwdbwd/fp32/B2-T65-H2-K64-V32/floor",
                                          "decay/gla/faulty/fwdbwd/fp32/B2-T65-H2-K64-V32/mixed"}));
}

TEST(Battery, NamesAVariantThatStagesItsStateAsFp16Parts) {
  // A chunked kernel's trap with fp16 inputs: the state staged for the tensor cores as two fp16 parts
  // (high + low) keeps ~22 bits of an ordinary state but turns an element past 65504 into inf.
  const FaultyGla fp16_parts([](Variant& v) {
    v.forward = [inner = v.forward](const ForwardCall& call) {
      call_with_edited(call.inputs.at("h0"), overflow_as_fp16_parts, [&] { inner(call); });
    };
  });
  expect_only_the_state_cases_fail_with_inf(fp16_parts.registry, {"large_state", "large_state_small_loss"});
}

TEST(Battery, TheLargeStateCasesScaleTheStateUpAndItsReadersDown) {
  for (Magnitude magnitude : {Magnitude::large_state, Magnitude::large_state_small_loss}) {
    const bool small_loss = magnitude == Magnitude::large_state_small_loss;
    for (const char* name : {"gla", "rwkv7", "gsa"}) {
      const BatteryCase c = small_state_case(name, magnitude);
      const CheckInputs large = battery_inputs(c, 5), usual = battery_inputs(small_state_case(name), 5);
      const std::string state = c.op->states.front().first, reader = c.op->state_reader;
      EXPECT_EQ(uniform_ratio(large.inputs.at(state), usual.inputs.at(state)), kLargeState) << name;
      EXPECT_EQ(uniform_ratio(large.inputs.at(reader), usual.inputs.at(reader)), kLargeStateReader) << name;
      for (const auto& [gradient, values] : *large.grad_outputs)  // do as drawn but under the small loss
        EXPECT_EQ(uniform_ratio(values, usual.grad_outputs->at(gradient)),
                  small_loss || of_a_final_state(*c.op, gradient) ? kLargeStateReader : 1.0f)
            << name << " " << gradient;
      float largest = 0;
      for (float x : large.inputs.at(state).values) largest = std::max(largest, std::abs(x));
      EXPECT_GT(largest, 65504.0f) << name << ": the state must pass fp16's range";
    }
    // and the op's scale turned down by the rest, so the state's products keep their usual size
    expect_every_op_gets(magnitude, kLargeStateScale);
  }
}

TEST(Battery, TheLargeStateCasesAreSkippedWithAReasonWhereNoInputReadsTheState) {
  Registry registry;
  OpSpec unread = testing::op_named("gla");
  unread.state_reader.clear();
  registry.add_variant(make_reference_variant(registry.add_op(std::move(unread))));
  for (Magnitude magnitude : {Magnitude::large_state, Magnitude::large_state_small_loss})
    expect_skipped_with(registry, magnitude, "no state read linearly");
}

TEST(Battery, NamesAVariantThatOverflowsOnAStateGradientPastFp16sRange) {
  // The same trap in the backward: the state's gradient dS staged as fp16 parts (modelled on the incoming
  // dht, from which every dS_t starts).
  const FaultyGla overflows([](Variant& v) {
    v.backward = [inner = v.backward](const BackwardCall& call) {
      call_with_edited(call.grad_outputs.at("dht"), overflow_as_fp16_parts, [&] { inner(call); });
    };
  });
  expect_only_the_state_cases_fail_with_inf(overflows.registry, {"large_state_gradient"});
}

TEST(Battery, TheLargeStateGradientCaseScalesTheGradientUpAndWhatItMultipliesDown) {
  for (const char* name : {"gla", "rwkv6", "rwkv7", "gsa"}) {
    const BatteryCase c = small_state_case(name, Magnitude::large_state_gradient);
    const CheckInputs large = battery_inputs(c, 5), usual = battery_inputs(small_state_case(name), 5);
    std::set<std::string> initial_states, writers(c.op->state_writers.begin(), c.op->state_writers.end());
    for (const auto& [initial, final] : c.op->states) initial_states.insert(initial);
    EXPECT_FALSE(writers.empty()) << name;
    for (const auto& [input, values] : large.inputs) {
      const bool scaled = initial_states.count(input) || writers.count(input);
      EXPECT_EQ(uniform_ratio(values, usual.inputs.at(input)), scaled ? kSmallFactor : 1.0f)
          << name << " " << input;
    }
    float largest = 0;
    for (const auto& [gradient, values] : *large.grad_outputs) {
      const bool of_a_state = of_a_final_state(*c.op, gradient);
      EXPECT_EQ(uniform_ratio(values, usual.grad_outputs->at(gradient)),
                of_a_state ? kLargeStateGradient : 1.0f)
          << name << " " << gradient;
      if (of_a_state)
        for (float x : values.values) largest = std::max(largest, std::abs(x));
    }
    EXPECT_GT(largest, 65504.0f) << name << ": the state's gradient must pass fp16's range";
  }
  // and the op's scale turned up by as much as the states went down, so the output keeps its size
  expect_every_op_gets(Magnitude::large_state_gradient, kLargeStateGradientScale);
}

TEST(Battery, TheLargeStateGradientCaseIsSkippedWithAReasonWhereNoInputWritesTheState) {
  Registry registry;
  OpSpec unwritten = testing::op_named("gla");
  unwritten.state_writers.clear();
  registry.add_variant(make_reference_variant(registry.add_op(std::move(unwritten))));
  expect_skipped_with(registry, Magnitude::large_state_gradient, "no inputs that write its state");
}

TEST(Battery, NamesAVariantThatKeepsALogitSizedGradientInFp16) {
  // gsa chunk's trap (kernels/notes/gsa.md): with fp16 inputs, an intermediate a fraction of do's size (its
  // logit gradient, scale p (dp - p . dp)) stored in fp16. Modelled on do itself at 2^-9 of its size: in
  // the usual cases it keeps fp16's 11 bits; under a small loss (both cases that make one) it falls among
  // the subnormals.
  constexpr float kLogitSize = 1.0f / 512.0f;
  const FaultyGla logit_sized([&](Variant& v) {
    v.backward = [inner = v.backward](const BackwardCall& call) {
      if (call.problem.dtype != DType::fp16) return inner(call);
      const auto as_fp16_logit = [](Array64& tensor) {
        for (double& x : tensor.values)
          x = round_to_dtype(DType::fp16, static_cast<float>(x) * kLogitSize) / kLogitSize;
      };
      call_with_edited(call.grad_outputs.at("do"), as_fp16_logit, [&] { inner(call); });
    };
  });
  const BatteryOutcome outcome = run_on_cpu(logit_sized.registry, "/gla/");
  std::set<std::string> names;
  for (const CaseRecord& r : outcome.failed()) {
    names.insert(r.name);
    EXPECT_EQ(failing_tensor(r)->nonfinite, 0) << r.name << ": a precision loss, not an overflow";
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"accuracy/gla/faulty/fwdbwd/fp16/B2-T65-H2-K64-V32/small_loss",
                                   "state/gla/faulty/fwdbwd/fp16/B2-T65-H2-K64-V32/large_state_small_loss"}));
}

TEST(Battery, TheSmallLossCaseScalesEveryIncomingGradientDown) {
  for (const char* name : {"gla", "rwkv7", "gsa"}) {
    const BatteryCase c = small_state_case(name, Magnitude::small_loss);
    const CheckInputs small = battery_inputs(c, 5), usual = battery_inputs(small_state_case(name), 5);
    for (const auto& [input, values] : small.inputs)
      EXPECT_EQ(uniform_ratio(values, usual.inputs.at(input)), 1.0f) << name << " " << input;
    ASSERT_TRUE(small.grad_outputs) << name;
    for (const auto& [gradient, values] : *small.grad_outputs)
      EXPECT_EQ(uniform_ratio(values, usual.grad_outputs->at(gradient)), kSmallFactor)
          << name << " " << gradient;
  }
  expect_every_op_gets(Magnitude::small_loss, 1.0);
}

TEST(Battery, AForwardAloneGetsNoSmallLossCase) {
  const FaultyGla forward_only(without_backward);
  const std::vector<BatteryCase> cases =
      battery_cases(forward_only.registry, {"small_loss$", Backend::cpu, {}, false});
  std::set<std::string> variants;
  for (const BatteryCase& c : cases) variants.insert(c.variant->name);
  EXPECT_EQ(variants, std::set<std::string>{"reference"});
}

TEST(Battery, NamesAVariantWithAWrongInitialStateGradientWhenKDiffersFromV) {
  // The backward only fills the square min(K, V) block of dh0, as if it indexed the state with one head dim.
  const FaultyGla square([](Variant& v) {
    v.backward = [inner = v.backward](const BackwardCall& call) {
      inner(call);
      const Problem& p = call.problem;
      const std::int64_t side = std::min(p.K, p.V);
      edit_tensor(call.grads.at("dh0"), [&](Array64& dh0) {
        for (std::size_t i = 0; i < dh0.values.size(); ++i) {
          const std::int64_t key = (static_cast<std::int64_t>(i) / p.V) % p.K, value = i % p.V;
          if (key >= side || value >= side) dh0.values[i] = 0;
        }
      });
    };
  });
  const BatteryOutcome outcome = run_on_cpu(square.registry, "/fp32/");
  ASSERT_FALSE(outcome.failed().empty());
  for (const CaseRecord& r : outcome.failed()) {
    EXPECT_NE(r.K, r.V) << r.name;
    EXPECT_EQ(failing_tensor(r)->tensor, "dh0") << r.name;
  }
  const std::set<std::string> families = outcome.failed_families();
  EXPECT_TRUE(families.contains("shapes"));
  EXPECT_TRUE(families.contains("state"));
  const std::vector<CaseRecord> failed = outcome.failed();
  for (const char* name : {"shapes/gla/faulty/fwdbwd/fp32/B2-T65-H2-K64-V16/reference",
                           "shapes/gla/faulty/fwdbwd/fp32/B2-T65-H2-K16-V64/reference",
                           "state/gla/faulty/fwdbwd/fp32/B2-T17-H2-K64-V16/initial_state"})
    EXPECT_TRUE(std::any_of(failed.begin(), failed.end(), [&](const CaseRecord& r) {
      return r.name == name;
    })) << name;
}

TEST(Battery, DecayExtremesReachTheOpsFloorAndSkipBeyondAVariantsDeclaredRange) {
  const FaultyGla bounded([](Variant& v) { v.support.log_decay_floor = -5; });
  const std::vector<BatteryCase> cases =
      battery_cases(bounded.registry, {"^decay/gla/faulty/.*/bf16/", Backend::cpu, {}, true});
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_FALSE(cases[0].skip_reason);  // near_zero
  for (int i : {1, 2}) {
    ASSERT_TRUE(cases[i].skip_reason) << cases[i].name;
    EXPECT_NE(cases[i].skip_reason->find("down to -5"), std::string::npos);
  }

  const auto decay_of = [](const std::string& op, DecayScenario scenario) {
    BatteryCase c{.decay = scenario, .op = &testing::op_named(op)};
    c.problem = testing::small_problem(*c.op, 2, 65, 2, 64, 32, DType::bf16);
    return battery_inputs(c, 3).inputs.at(c.op->log_decay).values;
  };
  for (float g : decay_of("gla", DecayScenario::floor)) ASSERT_EQ(g, -40.0f);
  for (float g : decay_of("rwkv7", DecayScenario::floor))
    ASSERT_EQ(g, round_to_dtype(DType::bf16, -0.6065306597126334f));
  for (float g : decay_of("rwkv7", DecayScenario::beyond)) ASSERT_EQ(g, -5.0f);
  for (float g : decay_of("simple_gla", DecayScenario::near_zero)) ASSERT_NEAR(g, -1e-6, 1e-8);
  const std::vector<float> mixed = decay_of("rwkv6", DecayScenario::mixed);
  const auto share = [&](auto predicate) {
    return static_cast<double>(std::count_if(mixed.begin(), mixed.end(), predicate)) / mixed.size();
  };
  EXPECT_NEAR(share([](float g) { return g == -40.0f; }), 1.0 / 3, 0.02);
  EXPECT_NEAR(share([](float g) { return g > -1e-5f; }), 1.0 / 3, 0.02);
}

// Decays past an op's layer floor (rwkv7's -0.6065) down to -5 are checked too, where the floor is above
// that; ops made for -40 need no such case.
TEST(Battery, DecaysBeyondALayersFloorAreCheckedOnlyWhereTheFloorIsAboveThem) {
  const BatterySpec spec{"^decay/.*/naive/fwdbwd/bf16/", Backend::cuda, {227 * 1024, 90}, false};
  const std::vector<BatteryCase> cases = battery_cases(product_registry(), spec);
  std::set<std::string> beyond;
  for (const BatteryCase& c : cases)
    if (c.decay == DecayScenario::beyond) beyond.insert(c.op->name);
  EXPECT_EQ(beyond, std::set<std::string>{"rwkv7"});
  for (const BatteryCase& c : cases) {
    if (c.decay == DecayScenario::beyond) {
      EXPECT_NE(c.name.find("/beyond_floor"), std::string::npos);
    }
  }
}

// A forward no backward follows may take a path of its own at many heads and K = 128 (rwkv7's bf16 fused
// forward: two columns a lane): on a GPU the decay family reaches it in every scenario, the CPU backend not.
TEST(Battery, TheForwardAloneAtManyHeadsGetsEveryDecayScenarioOnAGpu) {
  const auto decays_of = [](Backend backend, const std::string& filter) {
    std::set<std::string> names;
    for (const BatteryCase& c : battery_cases(product_registry(), {filter, backend, {227 * 1024, 90}, false}))
      if (c.name.find("/B2-T37-H16-K128-V128/") != std::string::npos)
        names.insert(c.name.substr(c.name.rfind('/') + 1));
    return names;
  };
  EXPECT_EQ(decays_of(Backend::cuda, "^decay/rwkv7/fused_recurrent/fwd/bf16/"),
            (std::set<std::string>{"near_zero_forward_only", "floor_forward_only", "mixed_forward_only",
                                   "beyond_floor_forward_only"}));
  EXPECT_TRUE(decays_of(Backend::cpu, "^decay/rwkv7/").empty());
}

// On a GPU a chunked variant gets near-zero log decays at the sequence segments' shapes, fwd+bwd and the
// forward alone (a state carried over the whole sequence: where the forwards split it and the backward's
// reverse scan runs in runs, a wrong start shows); a variant without chunks and the CPU backend do not.
TEST(Battery, NearZeroDecaysReachTheSequenceSegmentsOfChunkedVariantsOnAGpu) {
  const auto names_of = [](Backend backend, const std::string& filter) {
    std::set<std::string> names;
    for (const BatteryCase& c : battery_cases(product_registry(), {filter, backend, {227 * 1024, 90}, false}))
      if (c.name.find("near_zero_segments") != std::string::npos) {
        EXPECT_EQ(c.decay, DecayScenario::near_zero) << c.name;
        names.insert(c.name);
      }
    return names;
  };
  EXPECT_EQ(
      names_of(Backend::cuda, "^decay/simple_gla/chunk/(fwd|fwdbwd)/bf16/.*/C64/"),
      (std::set<std::string>{
          "decay/simple_gla/chunk/fwdbwd/bf16/B1-T4100-H16-K64-V64/C64/near_zero_segments",
          "decay/simple_gla/chunk/fwdbwd/bf16/B1-T1100-H2-K128-V128/C64/near_zero_segments",
          "decay/simple_gla/chunk/fwd/bf16/B1-T4100-H16-K64-V64/C64/near_zero_segments_forward_only",
          "decay/simple_gla/chunk/fwd/bf16/B1-T1100-H2-K128-V128/C64/near_zero_segments_forward_only"}));
  EXPECT_TRUE(names_of(Backend::cuda, "^decay/simple_gla/fused_recurrent/").empty());
  EXPECT_TRUE(names_of(Backend::cpu, "^decay/simple_gla/").empty());
}

// The forward alone at every many-heads shape, on a GPU, for a variant with a backward: at K = 64 and 64
// heads fused_recurrent's plain bf16 forward takes 8 keys a lane and sums four outputs at once, a path the
// fwd+bwd cases (whose forward saves for the backward) never run.
TEST(Battery, TheForwardAloneRunsAtEveryManyHeadsShapeOnAGpu) {
  const auto shapes_of = [](Backend backend, const std::string& filter) {
    std::set<std::string> names;
    for (const BatteryCase& c : battery_cases(product_registry(), {filter, backend, {227 * 1024, 90}, false}))
      if (c.name.ends_with("/many_heads_forward_only")) names.insert(c.name);
    return names;
  };
  EXPECT_EQ(shapes_of(Backend::cuda, "^shapes/gla/fused_recurrent/fwd/bf16/"),
            (std::set<std::string>{
                "shapes/gla/fused_recurrent/fwd/bf16/B4-T37-H16-K64-V64/many_heads_forward_only",
                "shapes/gla/fused_recurrent/fwd/bf16/B2-T37-H16-K128-V128/many_heads_forward_only",
                "shapes/gla/fused_recurrent/fwd/bf16/B4-T37-H16-K128-V128/many_heads_forward_only"}));
  EXPECT_TRUE(shapes_of(Backend::cpu, "^shapes/gla/").empty());
}

TEST(Battery, CasesCoverEveryCudaVariantAndPair) {
  const BatterySpec spec{"/gla/.*/bf16/", Backend::cuda, {227 * 1024, 90}, false};
  const std::vector<BatteryCase> cases = battery_cases(product_registry(), spec);
  const auto find = [&](const std::string& name) {
    return std::find_if(cases.begin(), cases.end(), [&](const BatteryCase& c) { return c.name == name; });
  };
  EXPECT_NE(find("cross/gla/naive~fused_recurrent/fwdbwd/bf16/B2-T65-H3-K64-V64/same_inputs"), cases.end());
  EXPECT_NE(find("state/gla/fused_recurrent>naive/fwd/bf16/B2-T65-H2-K64-V32/prefill64"), cases.end());
  EXPECT_NE(find("state/gla/naive>fused_recurrent/fwd/bf16/B1-T2109-H2-K64-V64/prefill2048_decode"),
            cases.end());
  EXPECT_NE(find("decay/gla/fused_recurrent/fwdbwd/bf16/B2-T65-H2-K64-V32/mixed"), cases.end());
  EXPECT_NE(find("shapes/gla/fused_recurrent/fwdbwd/bf16/B4-T37-H16-K128-V128/many_heads"), cases.end());
  EXPECT_NE(find("shapes/gla/fused_recurrent/fwd/bf16/B2-T4100-H2-K64-V64/forward_only"), cases.end());
  EXPECT_NE(find("shapes/gla/fused_recurrent/fwdbwd/bf16/B2-T4100-H2-K64-V64/segments"), cases.end());
  const auto long_case = find("shapes/gla/naive/fwdbwd/bf16/B1-T24576-H1-K64-V64/reference");
  ASSERT_NE(long_case, cases.end());
  ASSERT_TRUE(long_case->skip_reason);
  EXPECT_NE(long_case->skip_reason->find("--no-long"), std::string::npos);
  for (const BatteryCase& c : cases) EXPECT_EQ(c.op->name, "gla") << c.name;
  EXPECT_THROW(battery_cases(product_registry(), {"(", Backend::cuda, {}, true}), UsageError);
}

// A chunked variant's own families run at every chunk size it takes, named by it and run with it; pairs use
// each variant's default chunk size and carry none in the name.
TEST(Battery, AChunkedVariantIsCheckedAtEveryChunkSize) {
  const BatterySpec spec{"/gla/.*chunk.*/bf16/", Backend::cuda, {227 * 1024, 90}, false};
  const std::vector<BatteryCase> cases = battery_cases(product_registry(), spec);
  for (int chunk_size : {16, 32, 64}) {
    const std::string name =
        "decay/gla/chunk/fwdbwd/bf16/B2-T65-H2-K64-V32/C" + std::to_string(chunk_size) + "/floor";
    const auto found =
        std::find_if(cases.begin(), cases.end(), [&](const BatteryCase& c) { return c.name == name; });
    ASSERT_NE(found, cases.end()) << name;
    EXPECT_EQ(found->problem.chunk_size, chunk_size) << name;
    EXPECT_FALSE(found->skip_reason) << name;
  }
  const auto pair = std::find_if(cases.begin(), cases.end(), [](const BatteryCase& c) {
    return c.name == "state/gla/chunk>naive/fwd/bf16/B1-T2109-H2-K64-V64/prefill2048_decode";
  });
  ASSERT_NE(pair, cases.end());
  EXPECT_EQ(with_chunk_of(pair->problem, *pair->variant).chunk_size, 64);
}

// The shapes family plans some cases for smaller GPUs' shared memory: their skip reasons are that GPU's
// (gla's chunk form in fp32 at C = 64 does not fit 99 KiB a block; an A100's 163 KiB and the device's own
// hold it), and the variants see the smaller room while such a case runs, and only then.
TEST(Battery, TheSmallerGpusCasesPlanForItsSharedMemory) {
  const BatterySpec spec{
      "^shapes/gla/(chunk|fused_recurrent)/fwdbwd/fp32/", Backend::cuda, {227 * 1024, 90, 132}, false};
  const std::vector<BatteryCase> cases = battery_cases(product_registry(), spec);
  const auto find = [&](const std::string& name) {
    const auto at =
        std::find_if(cases.begin(), cases.end(), [&](const BatteryCase& c) { return c.name == name; });
    EXPECT_NE(at, cases.end()) << name;
    return at == cases.end() ? BatteryCase{} : *at;
  };
  const BatteryCase capped = find("shapes/gla/chunk/fwdbwd/fp32/B4-T37-H16-K64-V64/C64/shared_memory_99KiB");
  EXPECT_EQ(capped.shared_memory_cap, kRtx40SharedMemory);
  ASSERT_TRUE(capped.skip_reason);
  EXPECT_NE(capped.skip_reason->find("allows 99 KiB"), std::string::npos) << *capped.skip_reason;
  const BatteryCase a100 = find("shapes/gla/chunk/fwdbwd/fp32/B4-T37-H16-K64-V64/C64/shared_memory_163KiB");
  EXPECT_EQ(a100.shared_memory_cap, kA100SharedMemory);
  EXPECT_FALSE(a100.skip_reason) << *a100.skip_reason;
  const BatteryCase own = find("shapes/gla/chunk/fwdbwd/fp32/B4-T37-H16-K64-V64/C64/many_heads");
  EXPECT_EQ(own.shared_memory_cap, 0u);
  EXPECT_FALSE(own.skip_reason) << *own.skip_reason;
  const BatteryCase scans =
      find("shapes/gla/fused_recurrent/fwdbwd/fp32/B2-T1100-H2-K64-V64/shared_memory_99KiB");
  EXPECT_FALSE(scans.skip_reason) << *scans.skip_reason;
  // rwkv7's fused forward at K = 128 fits 99 KiB at one column a lane, its fwd+bwd does not
  const std::vector<BatteryCase> rwkv7 = battery_cases(
      product_registry(), {"^shapes/rwkv7/fused_recurrent/.*/bf16/B4-T37-H16-K128-V128/shared_memory_99KiB",
                           Backend::cuda,
                           {227 * 1024, 90, 132},
                           false});
  ASSERT_EQ(rwkv7.size(), 2u);
  for (const BatteryCase& c : rwkv7) EXPECT_EQ(bool(c.skip_reason), c.mode == Mode::fwdbwd) << c.name;

  // a variant that writes the shared memory it sees into its output: wrong (the check fails) unless 99 KiB
  std::vector<std::size_t> seen;
  const FaultyGla recording([&](Variant& v) {
    v.forward = [&seen, forward = v.forward](const ForwardCall& call) {
      forward(call);
      seen.push_back(within_shared_memory_cap({std::size_t(1) << 30, 0, 0}).shared_memory_per_block);
      if (seen.back() != kRtx40SharedMemory)
        edit_tensor(call.outputs.at("o"), [](Array64& o) { o.values[0] += 1; });
    };
  });
  std::vector<BatteryCase> accuracy =
      battery_cases(recording.registry, {"^accuracy/gla/faulty/fwd/fp32/", Backend::cpu, {}, false});
  ASSERT_EQ(accuracy.size(), 1u);
  const std::unique_ptr<Device> cpu = open_cpu_device();
  BatteryRunner runner(*cpu, 7, "fla-bench check --device cpu");
  EXPECT_EQ(runner.run(accuracy[0]).status, CaseStatus::failed);
  const std::size_t uncapped_calls = seen.size();
  accuracy[0].shared_memory_cap = kRtx40SharedMemory;
  EXPECT_EQ(runner.run(accuracy[0]).status, CaseStatus::ok);
  ASSERT_GT(uncapped_calls, 0u);
  ASSERT_GT(seen.size(), uncapped_calls);
  for (std::size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], i < uncapped_calls ? std::size_t(1) << 30 : kRtx40SharedMemory) << "call " << i;
  EXPECT_EQ(within_shared_memory_cap({std::size_t(1) << 30, 0, 0}).shared_memory_per_block, std::size_t(1)
                                                                                                << 30);
}

TEST(Battery, AForwardOnlyVariantMeetsItsPeersOnTheForward) {
  const FaultyGla forward_only(without_backward);
  const std::vector<BatteryCase> cases =
      battery_cases(forward_only.registry, {"^cross/gla/.*/bf16/", Backend::cpu, {}, false});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].name, "cross/gla/reference~faulty/fwd/bf16/B2-T65-H3-K64-V64/same_inputs");
  EXPECT_FALSE(cases[0].skip_reason) << *cases[0].skip_reason;
}

TEST(Battery, AForwardOnlyVariantGetsEveryFamilyOnItsForward) {
  const FaultyGla forward_only(without_backward);
  const std::vector<BatteryCase> cases = battery_cases(
      forward_only.registry, {"^(accuracy|decay|shapes|state|hygiene)/gla/faulty/", Backend::cpu, {}, false});
  std::set<std::string> families;
  for (const BatteryCase& c : cases) {
    EXPECT_EQ(c.mode, Mode::fwd) << c.name;
    EXPECT_FALSE(c.skip_reason) << c.name << ": " << *c.skip_reason;
    families.insert(std::string(family_name(c.family)));
  }
  EXPECT_EQ(families, (std::set<std::string>{"accuracy", "decay", "shapes", "state", "hygiene"}));
  EXPECT_EQ(std::count_if(cases.begin(), cases.end(),
                          [](const BatteryCase& c) {
                            return c.name == "accuracy/gla/faulty/fwd/bf16/B2-T65-H3-K64-V64/reference";
                          }),
            1)
      << "the typical shape's forward once, not twice";
}

}  // namespace
}  // namespace flabench
