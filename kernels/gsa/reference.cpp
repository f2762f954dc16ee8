#include "kernels/gsa/reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/common/parallel_for.h"

namespace flabench {
namespace {

// Offsets into the [B, T, heads, D] token tensors and the [B, H, D1, D2] states of one (b, h).
struct Index {
  const Problem& p;
  std::int64_t b, h;

  std::int64_t HQ() const { return p.H * p.G; }
  std::int64_t query(std::int64_t t, std::int64_t g) const {
    return ((b * p.T + t) * HQ() + h * p.G + g) * p.K;
  }
  std::int64_t output(std::int64_t t, std::int64_t g) const {
    return ((b * p.T + t) * HQ() + h * p.G + g) * p.V;
  }
  std::int64_t key(std::int64_t t) const { return ((b * p.T + t) * p.H + h) * p.K; }
  std::int64_t value(std::int64_t t) const { return ((b * p.T + t) * p.H + h) * p.V; }
  std::int64_t slot(std::int64_t t) const { return ((b * p.T + t) * p.H + h) * p.M; }
  std::int64_t key_state() const { return (b * p.H + h) * p.K * p.M; }
  std::int64_t value_state() const { return (b * p.H + h) * p.M * p.V; }
};

// One head's state pair: Hk [K x M] and Hv [M x V], row-major.
struct States {
  std::vector<double> hk, hv;
};

// Steps the states over token t: Hk = Hk diag(e) + k s^T, Hv = diag(e) Hv + s v^T.
void step(const Problem& p, const Index& at, const Arrays64& in, std::int64_t t, States& s) {
  const double* k = in.at("k").data() + at.key(t);
  const double* v = in.at("v").data() + at.value(t);
  const double* slots = in.at("s").data() + at.slot(t);
  const double* f = in.at("f").data() + at.slot(t);
  for (std::int64_t i = 0; i < p.K; ++i)
    for (std::int64_t m = 0; m < p.M; ++m)
      s.hk[i * p.M + m] = s.hk[i * p.M + m] * std::exp(f[m]) + k[i] * slots[m];
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t j = 0; j < p.V; ++j)
      s.hv[m * p.V + j] = std::exp(f[m]) * s.hv[m * p.V + j] + slots[m] * v[j];
}

// p = softmax(scale * Hk^T q) over the slots.
std::vector<double> slot_weights(const Problem& p, const std::vector<double>& hk, const double* q) {
  std::vector<double> weights(p.M, 0.0);
  for (std::int64_t m = 0; m < p.M; ++m) {
    for (std::int64_t i = 0; i < p.K; ++i) weights[m] += hk[i * p.M + m] * q[i];
    weights[m] *= p.scale;
  }
  const double largest = *std::max_element(weights.begin(), weights.end());
  double total = 0;
  for (double& w : weights) total += (w = std::exp(w - largest));
  for (double& w : weights) w /= total;
  return weights;
}

States initial_states(const Problem& p, const Index& at, const Arrays64& in) {
  const double* hk0 = in.at("hk0").data() + at.key_state();
  const double* hv0 = in.at("hv0").data() + at.value_state();
  return {{hk0, hk0 + p.K * p.M}, {hv0, hv0 + p.M * p.V}};
}

void for_each_head(const Problem& p, const auto& body) {
  parallel_for(p.B * p.H, [&](std::int64_t bh) { body(Index{p, bh / p.H, bh % p.H}); });
}

}  // namespace

void gsa_reference_forward(const Problem& p, const Arrays64& in, Arrays64& out) {
  for_each_head(p, [&](const Index& at) {
    States s = initial_states(p, at, in);
    for (std::int64_t t = 0; t < p.T; ++t) {
      step(p, at, in, t, s);
      for (std::int64_t g = 0; g < p.G; ++g) {
        const std::vector<double> weights = slot_weights(p, s.hk, in.at("q").data() + at.query(t, g));
        double* o = out.at("o").data() + at.output(t, g);
        for (std::int64_t j = 0; j < p.V; ++j) {
          o[j] = 0;
          for (std::int64_t m = 0; m < p.M; ++m) o[j] += s.hv[m * p.V + j] * weights[m];
        }
      }
    }
    std::copy(s.hk.begin(), s.hk.end(), out.at("hkt").data() + at.key_state());
    std::copy(s.hv.begin(), s.hv.end(), out.at("hvt").data() + at.value_state());
  });
}

void gsa_reference_backward(const Problem& p, const Arrays64& in, const Arrays64& grad_out, Arrays64& grads) {
  for_each_head(p, [&](const Index& at) {
    // every state pair, before token 0 and after each token
    std::vector<States> history{initial_states(p, at, in)};
    for (std::int64_t t = 0; t < p.T; ++t) {
      history.push_back(history.back());
      step(p, at, in, t, history.back());
    }
    const double* dhkt = grad_out.at("dhkt").data() + at.key_state();
    const double* dhvt = grad_out.at("dhvt").data() + at.value_state();
    std::vector<double> dhk(dhkt, dhkt + p.K * p.M), dhv(dhvt, dhvt + p.M * p.V);
    for (std::int64_t t = p.T - 1; t >= 0; --t) {
      const States& now = history[t + 1];
      const States& before = history[t];
      // the outputs of token t read Hk_t through the softmax and Hv_t directly
      for (std::int64_t g = 0; g < p.G; ++g) {
        const double* q = in.at("q").data() + at.query(t, g);
        const double* d_o = grad_out.at("do").data() + at.output(t, g);
        const std::vector<double> weights = slot_weights(p, now.hk, q);
        std::vector<double> d_weights(p.M, 0.0);
        double weighted = 0;
        for (std::int64_t m = 0; m < p.M; ++m) {
          for (std::int64_t j = 0; j < p.V; ++j) {
            d_weights[m] += now.hv[m * p.V + j] * d_o[j];
            dhv[m * p.V + j] += weights[m] * d_o[j];
          }
          weighted += weights[m] * d_weights[m];
        }
        double* dq = grads.at("dq").data() + at.query(t, g);
        for (std::int64_t i = 0; i < p.K; ++i) dq[i] = 0;
        for (std::int64_t m = 0; m < p.M; ++m) {
          const double d_logit = p.scale * weights[m] * (d_weights[m] - weighted);
          for (std::int64_t i = 0; i < p.K; ++i) {
            dq[i] += now.hk[i * p.M + m] * d_logit;
            dhk[i * p.M + m] += q[i] * d_logit;
          }
        }
      }
      // the update of token t: Hk_t = Hk_{t-1} diag(e) + k s^T, Hv_t = diag(e) Hv_{t-1} + s v^T
      const double* k = in.at("k").data() + at.key(t);
      const double* v = in.at("v").data() + at.value(t);
      const double* slots = in.at("s").data() + at.slot(t);
      const double* f = in.at("f").data() + at.slot(t);
      double* dk = grads.at("dk").data() + at.key(t);
      double* dv = grads.at("dv").data() + at.value(t);
      double* ds = grads.at("ds").data() + at.slot(t);
      double* df = grads.at("df").data() + at.slot(t);
      for (std::int64_t i = 0; i < p.K; ++i) {
        dk[i] = 0;
        for (std::int64_t m = 0; m < p.M; ++m) dk[i] += dhk[i * p.M + m] * slots[m];
      }
      for (std::int64_t j = 0; j < p.V; ++j) {
        dv[j] = 0;
        for (std::int64_t m = 0; m < p.M; ++m) dv[j] += dhv[m * p.V + j] * slots[m];
      }
      for (std::int64_t m = 0; m < p.M; ++m) {
        const double decay = std::exp(f[m]);
        double slot_grad = 0, carried = 0;
        for (std::int64_t i = 0; i < p.K; ++i) {
          slot_grad += dhk[i * p.M + m] * k[i];
          carried += before.hk[i * p.M + m] * dhk[i * p.M + m];
          dhk[i * p.M + m] *= decay;
        }
        for (std::int64_t j = 0; j < p.V; ++j) {
          slot_grad += dhv[m * p.V + j] * v[j];
          carried += before.hv[m * p.V + j] * dhv[m * p.V + j];
          dhv[m * p.V + j] *= decay;
        }
        ds[m] = slot_grad;
        df[m] = decay * carried;
      }
    }
    std::copy(dhk.begin(), dhk.end(), grads.at("dhk0").data() + at.key_state());
    std::copy(dhv.begin(), dhv.end(), grads.at("dhv0").data() + at.value_state());
  });
}

double gsa_reference_backward_bytes(const Problem& p) {
  return static_cast<double>(p.T + 1) * static_cast<double>(p.K * p.M + p.M * p.V) * sizeof(double);
}

}  // namespace flabench
