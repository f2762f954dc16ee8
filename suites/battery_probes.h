// What each probe of the check battery measures (suites/battery.h), as one CheckRecord per case.
#pragma once

#include <cstdint>
#include <functional>

#include "suites/battery.h"
#include "suites/checks.h"

namespace flabench {

// The log decays near zero that the decay and state families use.
inline constexpr double kNearZeroLogDecay = -1e-6;

// The case's inputs (and incoming gradients for fwdbwd) with its decay scenario applied to the op's log
// decay and its magnitude scenario (BatteryCase::magnitude) to the states, the gradients and what they
// multiply, each value rounded to its tensor's dtype.
CheckInputs battery_inputs(const BatteryCase& c, std::uint64_t seed);

// The fp64 reference results of the case's inputs, computed on first use and shared by the cases that need
// them.
using ReferenceSource = std::function<const CallResults&()>;

CheckRecord run_probe(Device& device, const BatteryCase& c, const CheckInputs& inputs,
                      const ReferenceSource& reference);

}  // namespace flabench
