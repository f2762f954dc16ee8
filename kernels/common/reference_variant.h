// The cpu backend's variant of an op: its fp64 reference, reading and writing tensors in the case dtype.
// It lets the whole pipeline (axes, timing, checks, JSON) run on a machine without a GPU.
#pragma once

#include "kernels/op.h"
#include "kernels/variant.h"

namespace flabench {

Variant make_reference_variant(const OpSpec& op);

}  // namespace flabench
