#include <algorithm>
#include <cmath>

#include "kernels/common/op_helpers.h"
#include "kernels/common/parallel_for.h"
#include "kernels/common/random.h"
#include "kernels/rwkv7/rwkv7.h"

namespace flabench {
namespace {

using namespace op_helpers;

// The layer bounds its log decay: w = -exp(-1/2) * sigmoid(x) > -exp(-1/2).
constexpr double kLogDecayFloor = -0.6065306597126334;

// The RWKV-7 layer's ranges, as FLA's benchmark draws them: w = -exp(-1/2) * sigmoid(x) (at most -1e-6),
// k halved, kk = normalize(x) per (token, head), a = -kk, b = kk * sigmoid(y).
void make_inputs(const Problem& p, std::uint64_t seed, HostValuesMap& in) {
  fill_all_normal(in, seed);
  std::vector<float>& w = in.at("w").values;
  std::vector<float>& k = in.at("k").values;
  parallel_for_elements(static_cast<std::int64_t>(w.size()), [&](std::int64_t i) {
    w[i] = static_cast<float>(std::min(kLogDecayFloor * sigmoid(w[i]), -1e-6));
    k[i] *= 0.5f;
  });
  const RandomStream kk_stream(seed, "kk"), gate_stream(seed, "a_gate");
  std::vector<float>& a = in.at("a").values;
  std::vector<float>& b = in.at("b").values;
  parallel_for_elements(p.B * p.T * p.H, [&](std::int64_t row) {
    const std::int64_t base = row * p.K;
    double norm = 0;
    for (std::int64_t i = 0; i < p.K; ++i) norm += std::pow(kk_stream.normal(base + i), 2);
    norm = std::sqrt(norm);
    for (std::int64_t i = 0; i < p.K; ++i) {
      const double kk = kk_stream.normal(base + i) / norm;
      a[base + i] = static_cast<float>(-kk);
      b[base + i] = static_cast<float>(kk * sigmoid(gate_stream.normal(base + i)));
    }
  });
}

}  // namespace

void register_rwkv7(Registry& registry) {
  op_helpers::register_op(
      registry,
      recurrence_op(
          {.name = "rwkv7",
           .math = "S_t = diag(exp(w_t)) S_{t-1} + b_t (a_t^T S_{t-1}) + k_t v_t^T;  o_t = scale * S_t^T r_t",
           .inputs = {{"r", kTokenKey},
                      {"w", kTokenKey},
                      {"k", kTokenKey},
                      {"v", kTokenValue},
                      {"a", kTokenKey},
                      {"b", kTokenKey},
                      state_input()},
           .binding = kRwkv7Binding,
           .flops_per_state_element = 9,  // a^T S (2), decay + low rank + outer product (5), output (2)
           .default_scale = [](const Problem&) { return 1.0; },  // chunk_rwkv7's default
           .make_inputs = make_inputs,
           .log_decay_floor = kLogDecayFloor}),
      {rwkv7_naive_variant(), rwkv7_fused_recurrent_variant(), rwkv7_chunk_variant()});
}

}  // namespace flabench
