#include "kernels/common/recurrence_reference.h"

#include <cmath>
#include <vector>

#include "kernels/common/parallel_for.h"

namespace flabench {
namespace {

// Pointers to the fp64 data of one op call, by role; roles the op lacks stay null.
struct Roles {
  const double *q, *k, *v, *g, *u, *a, *b, *h0;
};

const double* role(const Arrays64& arrays, const std::string& name) {
  return name.empty() ? nullptr : arrays.at(name).data();
}

Roles bind(const RecurrenceBinding& binding, const Arrays64& in) {
  return {role(in, binding.q), role(in, binding.k), role(in, binding.v), role(in, binding.g),
          role(in, binding.u), role(in, binding.a), role(in, binding.b), role(in, binding.h0)};
}

// The vectors of one token of one head, and its decays exp(g) (one per key channel).
struct Token {
  const double *q, *k, *v, *a, *b;
  std::vector<double> decay;
};

struct HeadLoop {
  const RecurrenceForm& form;
  const Problem& p;
  const Roles& in;
  std::int64_t b, h;

  std::int64_t row(std::int64_t t) const { return (b * p.T + t) * p.H + h; }

  Token token(std::int64_t t) const {
    const std::int64_t r = row(t);
    Token tok{in.q + r * p.K,
              in.k + r * p.K,
              in.v + r * p.V,
              in.a ? in.a + r * p.K : nullptr,
              in.b ? in.b + r * p.K : nullptr,
              std::vector<double>(p.K)};
    for (std::int64_t i = 0; i < p.K; ++i)
      tok.decay[i] = std::exp(form.gate == GateKind::per_key ? in.g[r * p.K + i] : in.g[r]);
    return tok;
  }

  const double* bonus() const { return in.u ? in.u + h * p.K : nullptr; }

  // o = scale * (S^T q + (q . (u o k)) v), the bonus only where the op has one.
  void output(const std::vector<double>& S, const Token& tok, double* o) const {
    double bonus_weight = 0;
    if (form.bonus)
      for (std::int64_t i = 0; i < p.K; ++i) bonus_weight += tok.q[i] * bonus()[i] * tok.k[i];
    for (std::int64_t j = 0; j < p.V; ++j) {
      double acc = bonus_weight * tok.v[j];
      for (std::int64_t i = 0; i < p.K; ++i) acc += S[i * p.V + j] * tok.q[i];
      o[j] = p.scale * acc;
    }
  }

  // S <- diag(decay) S + b (a^T S) + k v^T
  void update(const std::vector<double>& S, const Token& tok, std::vector<double>& next) const {
    std::vector<double> sa(p.V, 0.0);
    if (form.low_rank)
      for (std::int64_t i = 0; i < p.K; ++i)
        for (std::int64_t j = 0; j < p.V; ++j) sa[j] += tok.a[i] * S[i * p.V + j];
    for (std::int64_t i = 0; i < p.K; ++i)
      for (std::int64_t j = 0; j < p.V; ++j) {
        const double low_rank = form.low_rank ? tok.b[i] * sa[j] : 0.0;
        next[i * p.V + j] = tok.decay[i] * S[i * p.V + j] + low_rank + tok.k[i] * tok.v[j];
      }
  }

  std::vector<double> initial_state() const {
    const double* h0 = in.h0 + (b * p.H + h) * p.K * p.V;
    return std::vector<double>(h0, h0 + p.K * p.V);
  }
};

}  // namespace

void recurrence_reference_forward(const RecurrenceBinding& binding, const Problem& p, const Arrays64& inputs,
                                  Arrays64& outputs) {
  const Roles in = bind(binding, inputs);
  double* o = outputs.at(binding.o).data();
  double* ht = outputs.at(binding.ht).data();
  parallel_for(p.B * p.H, [&](std::int64_t bh) {
    const HeadLoop loop{binding.form, p, in, bh / p.H, bh % p.H};
    std::vector<double> S = loop.initial_state(), next(S.size());
    for (std::int64_t t = 0; t < p.T; ++t) {
      const Token tok = loop.token(t);
      double* o_t = o + loop.row(t) * p.V;
      if (binding.form.output_before_update) loop.output(S, tok, o_t);
      loop.update(S, tok, next);
      S.swap(next);
      if (!binding.form.output_before_update) loop.output(S, tok, o_t);
    }
    std::copy(S.begin(), S.end(), ht + bh * p.K * p.V);
  });
}

void recurrence_reference_backward(const RecurrenceBinding& binding, const Problem& p, const Arrays64& inputs,
                                   const Arrays64& grad_outputs, Arrays64& grads) {
  const RecurrenceForm& form = binding.form;
  const Roles in = bind(binding, inputs);
  const double* d_o = grad_outputs.at("d" + binding.o).data();
  const double* d_ht = grad_outputs.at("d" + binding.ht).data();
  auto grad = [&](const std::string& name) { return name.empty() ? nullptr : grads.at("d" + name).data(); };
  double *dq = grad(binding.q), *dk = grad(binding.k), *dv = grad(binding.v), *dg = grad(binding.g),
         *da = grad(binding.a), *db = grad(binding.b), *dh0 = grad(binding.h0);
  const std::int64_t KV = p.K * p.V;
  // du sums over the batch: each (b, h) writes its own partial, summed in a fixed order below.
  std::vector<double> du_partial(form.bonus ? p.B * p.H * p.K : 0, 0.0);

  parallel_for(p.B * p.H, [&](std::int64_t bh) {
    const HeadLoop loop{form, p, in, bh / p.H, bh % p.H};
    // states[t] is the state before token t; states[T] the final state.
    std::vector<double> states((p.T + 1) * KV);
    {
      std::vector<double> S = loop.initial_state(), next(KV);
      std::copy(S.begin(), S.end(), states.begin());
      for (std::int64_t t = 0; t < p.T; ++t) {
        loop.update(S, loop.token(t), next);
        S.swap(next);
        std::copy(S.begin(), S.end(), states.begin() + (t + 1) * KV);
      }
    }
    std::vector<double> dS(d_ht + bh * KV, d_ht + (bh + 1) * KV);
    std::vector<double> sa(p.V), dsa(p.V);
    double* du = form.bonus ? du_partial.data() + bh * p.K : nullptr;
    const double* u = loop.bonus();

    for (std::int64_t t = p.T - 1; t >= 0; --t) {
      const Token tok = loop.token(t);
      const std::int64_t r = loop.row(t);
      const double* S_prev = states.data() + t * KV;
      const double* S_new = S_prev + KV;
      const double* do_t = d_o + r * p.V;
      double *dq_t = dq + r * p.K, *dk_t = dk + r * p.K, *dv_t = dv + r * p.V;

      // Output: the state it reads gets scale * q do^T; q gets scale * S do.
      const double* S_read = form.output_before_update ? S_prev : S_new;
      for (std::int64_t i = 0; i < p.K; ++i) {
        double acc = 0;
        for (std::int64_t j = 0; j < p.V; ++j) acc += S_read[i * p.V + j] * do_t[j];
        dq_t[i] = p.scale * acc;
      }
      if (!form.output_before_update)
        for (std::int64_t i = 0; i < p.K; ++i)
          for (std::int64_t j = 0; j < p.V; ++j) dS[i * p.V + j] += p.scale * tok.q[i] * do_t[j];
      double v_dot_do = 0, bonus_weight = 0;
      if (form.bonus) {
        for (std::int64_t j = 0; j < p.V; ++j) v_dot_do += tok.v[j] * do_t[j];
        for (std::int64_t i = 0; i < p.K; ++i) bonus_weight += tok.q[i] * u[i] * tok.k[i];
      }

      // Update S_t = D S_{t-1} + b (a^T S_{t-1}) + k v^T, with dS = dL/dS_t.
      for (std::int64_t j = 0; j < p.V; ++j) {
        double acc_v = 0, acc_sa = 0, acc_dsa = 0;
        for (std::int64_t i = 0; i < p.K; ++i) {
          acc_v += dS[i * p.V + j] * tok.k[i];
          if (form.low_rank) {
            acc_sa += tok.a[i] * S_prev[i * p.V + j];
            acc_dsa += tok.b[i] * dS[i * p.V + j];
          }
        }
        dv_t[j] = acc_v + (form.bonus ? p.scale * bonus_weight * do_t[j] : 0.0);
        sa[j] = acc_sa;
        dsa[j] = acc_dsa;
      }
      double dg_head = 0;
      for (std::int64_t i = 0; i < p.K; ++i) {
        double acc_k = 0, acc_decay = 0, acc_b = 0, acc_a = 0;
        for (std::int64_t j = 0; j < p.V; ++j) {
          acc_k += dS[i * p.V + j] * tok.v[j];
          acc_decay += dS[i * p.V + j] * S_prev[i * p.V + j];
          acc_b += dS[i * p.V + j] * sa[j];
          acc_a += S_prev[i * p.V + j] * dsa[j];
        }
        dk_t[i] = acc_k;
        if (form.bonus) {
          dq_t[i] += p.scale * v_dot_do * u[i] * tok.k[i];
          dk_t[i] += p.scale * v_dot_do * u[i] * tok.q[i];
          du[i] += p.scale * v_dot_do * tok.q[i] * tok.k[i];
        }
        // d/dg of exp(g): the gradient of the decay times the decay.
        if (form.gate == GateKind::per_key)
          dg[r * p.K + i] = acc_decay * tok.decay[i];
        else
          dg_head += acc_decay * tok.decay[i];
        if (form.low_rank) {
          db[r * p.K + i] = acc_b;
          da[r * p.K + i] = acc_a;
        }
      }
      if (form.gate == GateKind::per_head) dg[r] = dg_head;

      // dL/dS_{t-1}
      for (std::int64_t i = 0; i < p.K; ++i)
        for (std::int64_t j = 0; j < p.V; ++j) {
          double next = tok.decay[i] * dS[i * p.V + j];
          if (form.low_rank) next += tok.a[i] * dsa[j];
          if (form.output_before_update) next += p.scale * tok.q[i] * do_t[j];
          dS[i * p.V + j] = next;
        }
    }
    std::copy(dS.begin(), dS.end(), dh0 + bh * KV);
  });

  if (form.bonus) {
    double* du = grad(binding.u);
    for (std::int64_t h = 0; h < p.H; ++h)
      for (std::int64_t i = 0; i < p.K; ++i) {
        double sum = 0;
        for (std::int64_t b = 0; b < p.B; ++b) sum += du_partial[(b * p.H + h) * p.K + i];
        du[h * p.K + i] = sum;
      }
  }
}

double recurrence_reference_backward_bytes(const Problem& p) {
  return static_cast<double>(p.T + 1) * static_cast<double>(p.K * p.V) * sizeof(double);
}

ReferenceForward make_reference_forward(RecurrenceBinding binding) {
  return [binding](const Problem& p, const Arrays64& in, Arrays64& out) {
    recurrence_reference_forward(binding, p, in, out);
  };
}

ReferenceBackward make_reference_backward(RecurrenceBinding binding) {
  return [binding](const Problem& p, const Arrays64& in, const Arrays64& grad_out, Arrays64& grads) {
    recurrence_reference_backward(binding, p, in, grad_out, grads);
  };
}

}  // namespace flabench
