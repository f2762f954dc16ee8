// gsa's device pointers of one call (the tensors of gsa.h by name) and its sizes, shared by its CUDA
// variants.
#pragma once

#include "kernels/common/problem.h"
#include "kernels/variant.h"

namespace flabench::gsa {

template <class T>
struct Pointers {
  const T *q, *k, *v, *s, *f;
  const float *hk0, *hv0;
  T* o;
  float *hkt, *hvt;
};

template <class T>
struct GradPointers {
  const T* d_o;
  const float *d_hkt, *d_hvt;
  T *dq, *dk, *dv, *ds, *df;
  float *dhk0, *dhv0;
};

// Sizes as ints for device code; HQ = G x H query heads, query head h * G + g reads key/value head h.
struct Dims {
  int B, T, H, G, K, V, M;
  float scale;
  __host__ __device__ std::int64_t query_row(int b, int t, int h, int g) const {
    return (std::int64_t(b) * T + t) * H * G + h * G + g;
  }
  __host__ __device__ std::int64_t head_row(int b, int t, int h) const {
    return (std::int64_t(b) * T + t) * H + h;
  }
};

inline Dims make_dims(const Problem& p) {
  return {int(p.B), int(p.T), int(p.H), int(p.G), int(p.K), int(p.V), int(p.M), float(p.scale)};
}

template <class T>
Pointers<T> bind_inputs(const TensorMap& in) {
  return {in.at("q").as<const T>(),
          in.at("k").as<const T>(),
          in.at("v").as<const T>(),
          in.at("s").as<const T>(),
          in.at("f").as<const T>(),
          in.at("hk0").as<const float>(),
          in.at("hv0").as<const float>(),
          nullptr,
          nullptr,
          nullptr};
}

template <class T>
Pointers<T> bind_forward(const ForwardCall& call) {
  Pointers<T> p = bind_inputs<T>(call.inputs);
  p.o = call.outputs.at("o").as<T>();
  p.hkt = call.outputs.at("hkt").as<float>();
  p.hvt = call.outputs.at("hvt").as<float>();
  return p;
}

template <class T>
GradPointers<T> bind_grads(const BackwardCall& call) {
  const TensorMap &out = call.grad_outputs, &g = call.grads;
  return {out.at("do").as<const T>(),
          out.at("dhkt").as<const float>(),
          out.at("dhvt").as<const float>(),
          g.at("dq").as<T>(),
          g.at("dk").as<T>(),
          g.at("dv").as<T>(),
          g.at("ds").as<T>(),
          g.at("df").as<T>(),
          g.at("dhk0").as<float>(),
          g.at("dhv0").as<float>()};
}

}  // namespace flabench::gsa
