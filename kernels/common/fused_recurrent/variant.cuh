// The fused_recurrent variant of every op: host-side plans, workspace and launches around the kernels of
// forward.cuh, backward_columns.cuh and backward_rows.cuh. kernels/notes/fused_recurrent.md has the design.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/common/forked_stream.h"
#include "kernels/common/format.h"
#include "kernels/common/fused_recurrent/backward_columns.cuh"
#include "kernels/common/fused_recurrent/backward_rows.cuh"
#include "kernels/common/fused_recurrent/forward.cuh"
#include "kernels/common/fused_recurrent/workspace.h"
#include "kernels/common/tpc_pairs.h"
#include "kernels/variant.h"
#include "profiles/nvtx_range.h"

namespace flabench::fused {

// `schedulers` (SMs x 4) picks the keys, columns and values per lane (layout.h).
inline Geometry geometry_of(const Problem& p, int schedulers) {
  return make_geometry(p.B, p.T, p.H, p.K, p.V, p.scale, kChunk, schedulers, p.dtype == DType::bf16);
}

// Calls fn(std::integral_constant<int, KPT>, std::integral_constant<int, CPL>) with the geometry's keys and
// columns per lane as compile-time constants (2 columns only at 16 keys).
template <class Fn>
void with_column_layout(const Geometry& g, Fn&& fn) {
  using std::integral_constant;
  if (g.KPT == 4)
    fn(integral_constant<int, 4>{}, integral_constant<int, 1>{});
  else if (g.KPT == 8)
    fn(integral_constant<int, 8>{}, integral_constant<int, 1>{});
  else if (g.CPL == 1)
    fn(integral_constant<int, 16>{}, integral_constant<int, 1>{});
  else
    fn(integral_constant<int, 16>{}, integral_constant<int, 2>{});
}

// A column pass's launch: its geometry, and whether converter warps join the W scanning warps of a block
// (column_feed.cuh).
struct ColumnPass {
  Geometry g;
  bool converters = false;
  int threads() const { return 32 * (g.W + (converters ? kConverterWarps : 0)); }
};

// Calls fn(std::bool_constant<pass.converters>). Converter kernels are built only for what column_pass and
// (kForward) forward_column_pass may choose: wide chunks (bf16 at 16 keys a lane, layout.h) without the
// low-rank term (rwkv7's five key vectors leave no room for a second buffer of wide records in 227 KiB; with
// a one-slot staging ring that made room its forward was 1.17x slower, version 72), and a forward at 4 keys
// a lane.
template <class Form, class T, int KPT, bool kForward = false, class Fn>
void with_converter(const ColumnPass& pass, Fn&& fn) {
  if constexpr ((KPT == 16 && std::is_same_v<T, __nv_bfloat16> && !Form::value.low_rank) ||
                (kForward && KPT == 4)) {
    if (pass.converters) return fn(std::true_type{});
  } else if (pass.converters) {  // a block kernel launched with the converters' threads would scan past V
    throw std::logic_error("fused_recurrent: converter warps chosen for a layout built without them");
  }
  fn(std::false_type{});
}

// The same for the row pass's values per lane.
template <class Fn>
void with_values_per_lane(const Geometry& g, Fn&& fn) {
  if (g.SPAN == 8)
    fn(std::integral_constant<int, 8>{});
  else
    fn(std::integral_constant<int, 16>{});
}

// The key-side vectors of a column pass (full K), then `slice` (BV columns of a [B, T, H, V] tensor) and a
// per-value gate's columns.
template <class Form, class T>
StagePlan column_plan(const Pointers<T>& p, const T* slice, const Geometry& g) {
  StagePlan plan;
  const int bytes = sizeof(T);
  plan.add(p.q, bytes, g.K, g.K);
  plan.add(p.k, bytes, g.K, g.K);
  if constexpr (KeyVectors<Form>::per_key_gate) plan.add(p.g, bytes, g.K, g.K);
  if constexpr (KeyVectors<Form>::low_rank) {
    plan.add(p.a, bytes, g.K, g.K);
    plan.add(p.b, bytes, g.K, g.K);
  }
  plan.add(slice, bytes, g.V, g.block_columns(), g.block_columns());
  if constexpr (KeyVectors<Form>::per_value_gate)
    plan.add(p.g, bytes, g.V, g.block_columns(), g.block_columns());
  plan.tokens = g.column_tokens;
  return plan;
}

// The shared memory of a column pass at g (with converter warps or without).
template <class Form, class T>
std::size_t column_pass_bytes(const Geometry& g, bool converters) {
  return column_shared_bytes<Form, T>(column_plan<Form, T>(Pointers<T>{}, nullptr, g), g, converters);
}

// Whether the device's shared memory holds a column pass at g (with converter warps or without).
template <class Form, class T>
bool column_pass_fits(const Geometry& g, bool converters) {
  return column_pass_bytes<Form, T>(g, converters) <= current_device_limits().shared_memory_per_block;
}

// The layout for `schedulers` (SMs x 4) within `room` bytes of shared memory a block: make_geometry's, with
// one column a lane where its column pass at two does not fit (two keep the partial sums of twice the
// columns: at K = 128 16 KiB more, past the 99 KiB of an RTX 40xx for rwkv7's bf16 forward and gla's fp32),
// then blocks of half the warps where 8 do not (their partial sums and value slice halve: rwkv7's fp16
// records, not packed, take it to 102 KiB at 8).
template <class Form, class T>
Geometry geometry_within(const Problem& p, int schedulers, std::size_t room) {
  Geometry g = geometry_of(p, schedulers);
  if (g.CPL == 2 && column_pass_bytes<Form, T>(g, false) > room)
    g = with_columns_per_lane(g, 1, schedulers, p.dtype == DType::bf16);
  if (g.W == kMaxColumnWarps && column_pass_bytes<Form, T>(g, false) > room)
    g = with_column_warps(g, kMaxColumnWarps / 2);
  return g;
}
template <class Form, class T>
Geometry launch_geometry(const Problem& p) {
  return geometry_within<Form, T>(p, 4 * current_device_attribute(cudaDevAttrMultiProcessorCount),
                                  current_device_limits().shared_memory_per_block);
}

// The column passes' launch (the saving forward's and the backward's alike): g, with 32-token chunks where
// they pay (Geometry::wide_chunks_pay) and the device's shared memory holds them, and there with converter
// warps where a second buffer of records fits too. Those blocks have an SM each, so the block's own
// conversion would stall the SM's only scan.
template <class Form, class T>
ColumnPass column_pass(const Geometry& g) {
  if (!g.wide_chunks_pay) return {g};
  const Geometry wide = with_wide_column_chunks(g);
  if (!column_pass_fits<Form, T>(wide, false)) return {g};
  if constexpr (Form::value.low_rank) return {wide};  // with_converter builds no converter kernels for it
  return {wide, column_pass_fits<Form, T>(wide, true)};
}

// The forward's launch: column_pass's, with converter warps where forward_converters (layout.h) says and
// they fit; for the forms whose conversion is the heaviest (the low-rank term's and the bonus's), blocks of
// 8 warps where eight_warp_forward says and they fit; a low-rank forward that saves nothing (`saves`
// false) at two columns a lane where plain_forward_takes_two_columns says and they fit.
template <class Form, class T>
ColumnPass forward_column_pass(const Geometry& g, bool saves) {
  ColumnPass pass = column_pass<Form, T>(g);
  const int schedulers = 4 * current_device_attribute(cudaDevAttrMultiProcessorCount);
  if (forward_converters(g.KPT, g.B, g.H, g.V, g.block_columns(), schedulers))
    pass.converters = column_pass_fits<Form, T>(pass.g, true);
  if constexpr (Form::value.low_rank || Form::value.bonus) {
    if (eight_warp_forward(g.KPT, g.B, g.H, g.V, g.block_columns(), schedulers)) {
      const Geometry wide = with_column_warps(pass.g, 2 * pass.g.W);
      if (column_pass_fits<Form, T>(wide, false)) pass.g = wide;
    }
  }
  if constexpr (Form::value.low_rank) {
    constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    const Geometry two = with_two_columns_a_lane(pass.g, schedulers, bf16);
    if (!saves && !pass.converters &&
        plain_forward_takes_two_columns(pass.g.KPT, pass.g.CPL, pass.g.block_columns(), two.block_columns(),
                                        g.B, g.H, g.V, bf16, schedulers) &&
        column_pass_fits<Form, T>(two, false))
      pass.g = two;
  }
  return pass;
}

// The key-side vectors' rows of the block, then v, do (and a^T S, dS^T b) over all V.
template <class Form, class T>
StagePlan row_plan(const Pointers<T>& p, const T* d_o, const float* sa, const float* dsa, const Geometry& g) {
  StagePlan plan;
  const int bytes = sizeof(T);
  const int rows = g.block_rows();
  plan.add(p.q, bytes, g.K, rows, rows);
  plan.add(p.k, bytes, g.K, rows, rows);
  if constexpr (KeyVectors<Form>::per_key_gate) plan.add(p.g, bytes, g.K, rows, rows);
  if constexpr (KeyVectors<Form>::low_rank) {
    plan.add(p.a, bytes, g.K, rows, rows);
    plan.add(p.b, bytes, g.K, rows, rows);
  }
  plan.add(p.v, bytes, g.V, g.V);
  plan.add(d_o, bytes, g.V, g.V);
  if constexpr (KeyVectors<Form>::low_rank) {
    plan.add(sa, sizeof(float), g.V, g.V);
    plan.add(dsa, sizeof(float), g.V, g.V);
  }
  return plan;
}

// The largest shared memory any of the kernels needs for `p` on a device of `room` bytes a block, over the
// layouts any device may pick: a GPU with no schedulers takes the widest column layout (8 keys per lane
// rather than 4, two columns rather than one where they fit: geometry_within), one with endless schedulers
// the row layout that needs more (8 values per lane rather than 16). Every GPU's layouts are one of these two
// per pass (tests/kernels/fused_layout_test.cpp checks it), so the bound holds.
template <class Form, class T>
std::size_t shared_bytes(const Problem& p, Mode mode, std::size_t room) {
  const Pointers<T> none{};
  std::size_t most = 0;
  for (const int schedulers : {0, 1 << 30}) {
    const Geometry g = geometry_within<Form, T>(p, schedulers, room);
    most = std::max(most, column_pass_bytes<Form, T>(g, false));
    if (mode != Mode::fwd)
      most = std::max(  // with one sub-chunk's sums: the launch takes two only where they fit
          most, rows_shared_bytes<Form>(row_plan<Form, T>(none, nullptr, nullptr, nullptr, g), g, kSub));
  }
  return most;
}

template <class Form>
std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  auto supported = [](std::int64_t n) { return n == 16 || n == 32 || n == 64 || n == 128 || n == 256; };
  if (!supported(p.K) || !supported(p.V))
    return format("fused_recurrent supports K and V in {16, 32, 64, 128, 256}, not K=%lld V=%lld",
                  static_cast<long long>(p.K), static_cast<long long>(p.V));
  std::size_t needed = 0;
  dispatch_dtype(p.dtype, [&](auto tag) {
    needed = shared_bytes<Form, decltype(tag)>(p, mode, device.shared_memory_per_block);
  });
  if (needed > device.shared_memory_per_block)
    return format(
        "fused_recurrent needs %zu KiB of shared memory per block at K=%lld V=%lld, the device allows %zu "
        "KiB",
        needed / 1024, static_cast<long long>(p.K), static_cast<long long>(p.V),
        device.shared_memory_per_block / 1024);
  return std::nullopt;
}

// A per-head gate: dg[row] = exp(g[row]) * sum over K of the row pass's terms.
template <class T>
__global__ void sum_key_terms_kernel(const float* terms, const T* g, T* dg, std::int64_t rows, int K) {
  const std::int64_t row = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0;
  for (int i = 0; i < K; ++i) sum += terms[row * K + i];
  dg[row] = from_float<T>(sum * expf(to_float(g[row])));
}

// The forward over `pointers` (o and ht bound, v the value-side slice) in the layout `g` (launch_geometry's
// for the problem): the state before every kChunk-th token into `checkpoints` and rwkv7's a^T S_{t-1} into
// `sa` where they are not null (a backward follows). `paired`: its blocks two by two on a TPC's SMs
// (tpc_pairs.h), for a launch that runs beside another kernel's (gsa's pipelined passes).
template <class Form, class T>
void launch_forward(const Pointers<T>& pointers, const Geometry& layout, float* checkpoints, float* sa,
                    cudaStream_t stream, bool paired = false) {
  ColumnPass pass = forward_column_pass<Form, T>(layout, checkpoints != nullptr);
  const StagePlan plan = column_plan<Form, T>(pointers, pointers.v, pass.g);
  std::size_t shared = column_shared_bytes<Form, T>(plan, pass.g, pass.converters);
  const bool room = checkpoints && sa && reinterpret_cast<std::uintptr_t>(checkpoints) % 16 == 0 &&
                    checkpoint_room_pays<Form>(pass.g, int(sizeof(T)), pass.converters, shared,
                                               current_device_limits().shared_memory_per_block);
  if (room) shared += sizeof(float) * checkpoint_room_floats(pass.g);
  const Geometry& g = pass.g;
  with_column_layout(g, [&](auto keys, auto columns) {
    const auto launch = [&](auto kernel) {
      allow_shared_memory(kernel, shared, /*whole_carveout=*/true);
      const dim3 grid(g.B * g.H, g.V / g.block_columns());
      if (paired)
        return launch_in_tpc_pairs(kernel, grid, dim3(pass.threads()), shared, stream,
                                   current_device_limits().compute_capability, pointers, g, plan, checkpoints,
                                   sa);
      kernel<<<grid, pass.threads(), shared, stream>>>(pointers, g, plan, checkpoints, sa);
    };
    constexpr int KPT = decltype(keys)::value, CPL = decltype(columns)::value;
    with_converter<Form, T, KPT, /*kForward=*/true>(pass, [&](auto converter) {
      constexpr bool kConverter = decltype(converter)::value;
      if constexpr (checkpoint_room_instance<Form>(sizeof(T), KPT, kConverter)) {
        if (room) return launch(fused_recurrent_fwd_kernel<Form, T, KPT, CPL, true, kConverter, true>);
      }
      if (checkpoints)
        launch(fused_recurrent_fwd_kernel<Form, T, KPT, CPL, true, kConverter>);
      else
        launch(fused_recurrent_fwd_kernel<Form, T, KPT, CPL, false, kConverter>);
    });
  });
  FLA_CUDA_CHECK_LAUNCH();
}

// The forward; where it saves for a backward, every checkpoint_every-th checkpoint (forward.cuh), `packed`
// one after another (the chunk variant's states: backward_in_chunks.cuh) or else in their own places.
template <class Form, class T>
void forward(const RecurrenceBinding& binding, const ForwardCall& call, int checkpoint_every = 1,
             bool packed = false) {
  const Problem& p = call.problem;
  Pointers<T> pointers = bind_inputs<T>(binding, call.inputs);
  pointers.o = call.outputs.at(binding.o).as<T>();
  pointers.ht = call.outputs.at(binding.ht).as<float>();
  float* workspace = reinterpret_cast<float*>(call.workspace.data());
  const WorkspaceLayout<Form> layout(p);
  float* checkpoints = call.save_for_backward ? workspace + layout.checkpoints : nullptr;
  float* sa = call.save_for_backward && Form::value.low_rank ? workspace + layout.sa : nullptr;
  const Geometry g = with_checkpoints_every(launch_geometry<Form, T>(p), checkpoint_every, packed);
  launch_forward<Form, T>(pointers, g, checkpoints, sa, call.stream);
}

// What the backward reads and writes beside the op's tensors: the forward's checkpoints (and rwkv7's
// a^T S_{t-1}), the column pass's dS^T b, a per-head gate's per-row dg terms, the bonus's partial du.
struct BackwardRoom {
  float *checkpoints, *sa, *dsa, *handoffs, *dg_rows, *du_partial;
};
template <class Form>
BackwardRoom backward_room(float* workspace, const Problem& p) {
  const WorkspaceLayout<Form> l(p);
  return {workspace + l.checkpoints, workspace + l.sa,      workspace + l.dsa,
          workspace + l.handoffs,    workspace + l.dg_rows, workspace + l.du_partial};
}

// The backward's passes over `pointers` and `grads` of problem `p` (its forward's checkpoints, and what else
// WorkspaceLayout<Form>(p) lays out, in `workspace`), each launched on the stream it is given:
// launch_backward orders them, and so may a caller with other scans to place beside them (gsa's backward).
template <class Form, class T>
struct BackwardPasses {
  Pointers<T> pointers;
  GradPointers<T> grads;
  Problem p;
  BackwardRoom room;
  Geometry g;
  // where set, the column pass leaves dS before its first token here ([B*H, K, V]): a segment's column
  // pass hands it to the segment before (segment())
  float* column_handoff = nullptr;

  BackwardPasses(const Pointers<T>& pointers, const GradPointers<T>& grads, const Problem& p,
                 float* workspace)
      : pointers(pointers),
        grads(grads),
        p(p),
        room(backward_room<Form>(workspace, p)),
        g(launch_geometry<Form, T>(p)) {}

  // The passes over tokens [t0, t0 + length) of every sequence (t0 whole wide chunks): the pointers at the
  // segment's first token, its checkpoints in the whole sequence's places (Geometry::sequence_stride and
  // checkpoint_stride). Both passes start from `d_ht`, dS after the segment; the row pass leaves dS before
  // it in `dh0` where that is set, and so does the column pass in `handoff` where that is set. A bonus's du
  // sums over the whole sequence in one row pass: no segments for it.
  BackwardPasses segment(int t0, int length, const float* d_ht, float* dh0, float* handoff) const {
    static_assert(!Form::value.bonus, "the bonus's du is summed by one row pass over the whole sequence");
    BackwardPasses part = *this;
    part.p.T = length;
    part.g = launch_geometry<Form, T>(part.p);
    part.g.sequence_stride = int(p.T);
    part.g.checkpoint_stride = int((p.T + kChunk - 1) / kChunk);
    const std::int64_t row = std::int64_t(t0) * p.H, keys = row * p.K, values = row * p.V;
    const auto at = [](auto* x, std::int64_t offset) { return x ? x + offset : x; };
    const std::int64_t gates = Form::value.gate == GateKind::per_head    ? row
                               : Form::value.gate == GateKind::per_value ? values
                                                                         : keys;
    Pointers<T>& in = part.pointers;
    in.q = at(in.q, keys), in.k = at(in.k, keys), in.v = at(in.v, values), in.g = at(in.g, gates);
    in.a = at(in.a, keys), in.b = at(in.b, keys);
    GradPointers<T>& d = part.grads;
    d.d_o = at(d.d_o, values), d.dq = at(d.dq, keys), d.dk = at(d.dk, keys), d.dv = at(d.dv, values);
    d.dg = at(d.dg, gates), d.da = at(d.da, keys), d.db = at(d.db, keys), d.dq_fp32 = at(d.dq_fp32, keys);
    d.d_ht = d_ht, d.dh0 = dh0;
    part.column_handoff = handoff;
    BackwardRoom& r = part.room;
    r.checkpoints = at(r.checkpoints, std::int64_t(t0) / kChunk * p.K * p.V);
    r.sa = at(r.sa, values), r.dsa = at(r.dsa, values), r.dg_rows = at(r.dg_rows, keys);
    return part;
  }

  // dS scanned backwards: dv (and dS^T b for the low-rank row pass). Needs no forward state.
  void columns(cudaStream_t stream) const {
    const ColumnPass pass = column_pass<Form, T>(g);
    const StagePlan plan = column_plan<Form, T>(pointers, grads.d_o, pass.g);
    const std::size_t shared = column_shared_bytes<Form, T>(plan, pass.g, pass.converters);
    with_column_layout(g, [&](auto keys, auto lane_columns) {
      constexpr int KPT = decltype(keys)::value;
      with_converter<Form, T, KPT>(pass, [&](auto converter) {
        const NvtxRange range("columns");  // each launch of the backward is its own range for nsys and ncu
        auto kernel = fused_recurrent_bwd_columns_kernel<Form, T, KPT, decltype(lane_columns)::value,
                                                         decltype(converter)::value>;
        allow_shared_memory(kernel, shared, /*whole_carveout=*/true);
        kernel<<<dim3(g.B * g.H, g.V / g.block_columns()), pass.threads(), shared, stream>>>(
            pointers, grads, pass.g, plan, room.dsa, column_handoff);
      });
    });
    FLA_CUDA_CHECK_LAUNCH();
  }

  // The gradients that reduce over V, from the forward's checkpoints (and the column pass's dS^T b).
  void rows(cudaStream_t stream) const {
    if (!KeyVectors<Form>::per_key_gate && grads.add_dk_dg)  // a per-head gate's dg is summed by finish()
      throw std::logic_error("fused_recurrent: the row pass adds dg onto a tensor only for a per-key gate");
    const StagePlan plan = row_plan<Form, T>(pointers, grads.d_o, room.sa, room.dsa, g);
    with_values_per_lane(g, [&](auto values) {
      auto kernel = fused_recurrent_bwd_rows_kernel<Form, T, decltype(values)::value>;
      // the partial sums of two sub-chunks where their room costs no resident block (rwkv7's five sums at
      // K = V = 128 in 16-bit would leave one block an SM where there were two: 5-6% slower)
      Geometry rows_g = g;
      std::size_t shared = rows_shared_bytes<Form>(plan, g, kSub);
      const std::size_t wide = rows_shared_bytes<Form>(plan, g, kWideSums);
      if (shared_memory_is_free(kernel, 32 * g.W_rows, shared, wide - shared))
        rows_g.row_sum_tokens = kWideSums, shared = wide;
      allow_shared_memory(kernel, shared, /*whole_carveout=*/true);
      const NvtxRange range("rows");
      kernel<<<dim3(g.B * g.H, g.K / g.block_rows()), 32 * g.W_rows, shared, stream>>>(
          pointers, grads, rows_g, plan, room.checkpoints, room.dg_rows, room.du_partial);
      FLA_CUDA_CHECK_LAUNCH();
    });
  }

  // After the row pass (of every segment): a per-head gate's dg summed over K, the bonus's du over the batch.
  void finish(cudaStream_t stream) const {
    if constexpr (Form::value.gate == GateKind::per_head) {
      const std::int64_t token_rows = p.B * p.T * p.H;
      const NvtxRange range("sum_key_terms");
      sum_key_terms_kernel<T><<<int((token_rows + 255) / 256), 256, 0, stream>>>(room.dg_rows, pointers.g,
                                                                                 grads.dg, token_rows, g.K);
      FLA_CUDA_CHECK_LAUNCH();
    }
    if constexpr (Form::value.bonus) {
      const NvtxRange range("sum_bonus_grad");
      sum_parts(room.du_partial, grads.du, 1, g.B, std::int64_t(g.H) * g.K, stream);
    }
  }
};

// The backward over the segments of backward_plan(T, n), backwards in time: the column pass of each segment
// in turn on the call's stream, each leaving dS before its segment for the segment before it
// (BackwardRoom::handoffs), and each segment's row pass, which needs no more than the dS after its segment
// (the next segment's handoff), the forward's checkpoints and (low rank) its own column pass's dS^T b, on
// one of four side streams as soon as those are made: beside the segment's own column pass where it does
// not read dS^T b. So the row passes of several segments run at once, beside the column pass: the row pass,
// which bounds the backward where heads are few, gets the segments' parallelism.
template <class Form, class T>
void run_backward_pipelined(const BackwardPasses<Form, T>& whole, int n, cudaStream_t stream) {
  const Problem& p = whole.p;
  const std::int64_t state = p.B * p.H * p.K * p.V;
  float* const column_handoffs = whole.room.handoffs;
  const SegmentPlan plan = backward_plan(p.T, n);
  n = plan.count;
  constexpr int kRowStreams = 4;
  ForkedStream sides[kRowStreams] = {ForkedStream(stream, 0), ForkedStream(stream, 1),
                                     ForkedStream(stream, 2), ForkedStream(stream, 3)};
  for (int i = n - 1; i >= 0; --i) {
    const bool last = i == n - 1, first = i == 0;
    const int t0 = int(plan.start[i]);
    const float* d_ht = last ? whole.grads.d_ht : column_handoffs + i * state;
    const BackwardPasses<Form, T> part =
        whole.segment(t0, plan.tokens(i), d_ht, first ? whole.grads.dh0 : nullptr,
                      first ? nullptr : column_handoffs + (i - 1) * state);
    ForkedStream& side = sides[i % kRowStreams];
    if constexpr (Form::value.low_rank) {  // the row pass reads the segment's dS^T b from its column pass
      part.columns(stream);
      side.hand_over();
    } else {  // the row pass needs only the next segment's handoff: beside this segment's column pass
      side.hand_over();
      part.columns(stream);
    }
    part.rows(side.side());
  }
}

// The backward's passes: over segments where the row pass leaves schedulers idle and the sequences are long
// enough (layout.h, segments.h); else the column pass on the schedulers the row pass leaves idle where
// warps are few, or first (the low-rank row pass reads its dS_t^T b_t).
template <class Form, class T>
void run_backward(const BackwardPasses<Form, T>& passes, cudaStream_t stream) {
  if constexpr (!Form::value.bonus) {  // the bonus's du sums over the whole sequence in one row pass
    const int n = backward_segments(passes.p.T);
    if (n > 1 && passes.g.over_segments) {
      run_backward_pipelined(passes, n, stream);
      passes.finish(stream);
      return;
    }
  }
  if (Form::value.low_rank || !passes.g.side_by_side) {
    passes.columns(stream);
    passes.rows(stream);
  } else {
    const ForkedStream fork(stream);
    passes.rows(stream);
    passes.columns(fork.side());
  }
  passes.finish(stream);
}

template <class Form, class T>
void launch_backward(const Pointers<T>& pointers, const GradPointers<T>& grads, const Problem& p,
                     float* workspace, cudaStream_t stream) {
  run_backward(BackwardPasses<Form, T>(pointers, grads, p, workspace), stream);
}

template <class Form, class T>
void backward(const RecurrenceBinding& binding, const BackwardCall& call) {
  launch_backward<Form, T>(bind_inputs<T>(binding, call.inputs),
                           bind_grads<T>(binding, call.grad_outputs, call.grads), call.problem,
                           reinterpret_cast<float*>(call.workspace.data()), call.stream);
}

// The fused_recurrent variant of an op whose math is `binding` (Form::value == binding.form).
template <class Form>
Variant make_variant(const std::string& op, const RecurrenceBinding& binding) {
  Variant variant;
  variant.op = op;
  variant.name = "fused_recurrent";
  variant.description =
      "one warp per (batch, head, value slice), fp32 state in registers, inputs staged with cp.async; "
      "backward from checkpoints every 16 tokens in a column and a row pass, side by side where warps are "
      "few, over segments of the sequence (the segments' row passes at once) where the row pass leaves "
      "schedulers idle";
  variant.backend = Backend::cuda;
  variant.support.limits = limits<Form>;
  // all of it the backward's (forward above)
  variant.workspace_bytes = [](const Problem& p, Mode mode, const DeviceLimits&) {
    return mode == Mode::fwdbwd ? WorkspaceLayout<Form>(p).total * sizeof(float) : 0;
  };
  variant.forward = by_dtype<ForwardCall>(
      [binding](auto tag, const ForwardCall& call) { forward<Form, decltype(tag)>(binding, call); });
  variant.backward = by_dtype<BackwardCall>(
      [binding](auto tag, const BackwardCall& call) { backward<Form, decltype(tag)>(binding, call); });
  return variant;
}

}  // namespace flabench::fused
