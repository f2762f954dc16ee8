// How gsa's forward runs on gla's fused_recurrent kernels (kernels/gsa/gla_passes.cuh) as the host plans it:
// the two passes as the problems gla's forward sees, and the segments of a sequence the passes are pipelined
// over. Host-safe (no device code), so tests/kernels/gsa_gla_passes_plan_test.cpp checks the rule on the CPU.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/common/dtype.h"
#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/fused_recurrent/segments.h"
#include "kernels/common/problem.h"
#include "kernels/common/recurrence.h"

namespace flabench::gsa::gla_passes {

// Pass 1's recurrence: the decay on the state's columns, the slots.
struct KeysForm {
  static constexpr RecurrenceForm value{.gate = GateKind::per_value};
};

// Pass 1: Hk, K keys by the M slots (its decay on the slots), queries q, values s.
inline Problem first_pass(const Problem& p) {
  Problem first = p;
  first.V = p.M;
  return first;
}
// Pass 2: Hv, the M slots by V values (gla itself), queries the softmax weights, unscaled.
inline Problem second_pass(const Problem& p) {
  Problem second = p;
  second.K = p.M, second.scale = 1.0;
  return second;
}

// Pass 1 as the backward takes it: Hk^T, the M slots by K keys, is gla's state with keys s, values k and
// its decay on the rows; gla's forward with queries dz gives dq = scale Hk dz, gla's backward with queries
// dz and output gradient q gives ds, dk, df and dHk0 (gla_passes_backward.cuh).
inline Problem first_pass_transposed(const Problem& p) {
  Problem transposed = p;
  transposed.K = p.M, transposed.V = p.K;
  return transposed;
}

// Which of a forward's checkpoints (one before every kChunk tokens) it saves for the backward that follows,
// and where: every one in its own place for gla's fused backward (gla_passes_backward.cuh), or one of every
// `every` packed one after another, the chunk variant's states before its chunks of every * kChunk tokens,
// for its backward (kernels/gsa/fused_recurrent.cu). The forward's segments start at whole wide chunks, so
// at a saved checkpoint wherever every * kChunk divides kWideChunk.
struct CheckpointPlan {
  int every = 1;
  // Checkpoints saved for a sequence of T tokens: from one head's first to the next's.
  std::int64_t per_sequence(std::int64_t T) const {
    return ((T + fused::kChunk - 1) / fused::kChunk + every - 1) / every;
  }
  // The index of the first one a segment from token t0 saves, in its sequence's.
  std::int64_t first(std::int64_t t0) const { return t0 / (std::int64_t(fused::kChunk) * every); }
};

// gla's forward layout for `pass` on a GPU of `schedulers` (SMs x 4), and the blocks it launches.
inline fused::Geometry pass_geometry(const Problem& pass, int schedulers) {
  return fused::make_geometry(pass.B, pass.T, pass.H, pass.K, pass.V, pass.scale, fused::kChunk, schedulers,
                              pass.dtype == DType::bf16);
}
inline std::int64_t launched_blocks(const fused::Geometry& g) {
  return std::int64_t(g.B) * g.H * (g.V / g.block_columns());
}

// Warps a pass launches for `pass` on a GPU of `schedulers`, in gla's forward layout.
inline std::int64_t pass_warps(const Problem& pass, int schedulers) {
  const fused::Geometry g = pass_geometry(pass, schedulers);
  return launched_blocks(g) * g.W;
}

constexpr int kSegmentTokens = 1024;    // tokens to a forward's segment, about (whole wide column chunks)
constexpr int kMinSegmentTokens = 256;  // and at least
constexpr int kMinSegments = fused::kMinSequenceSegments;
constexpr int kMaxSegments = fused::kMaxSequenceSegments;
static_assert(kSegmentTokens % fused::kWideChunk == 0 && kMinSegmentTokens % fused::kWideChunk == 0);
using fused::segment_tokens;

// Segments to pipeline a forward over, pass 2 of segment i beside pass 1 of segment i + 1 on two streams
// (a segment: the same tokens of every sequence): where the two scans together leave every scheduler at most
// four warps (each latency-bound at one or two warps a scheduler), about one per kSegmentTokens tokens, at
// least kMinSegments of kMinSegmentTokens or more (so from T = 1024: the forward 0.84-0.95x at 8,1024,8,64,
// kernels/notes/gsa.md, version 37); else 1, one pass after the other. A forward whose backward follows too:
// pass 2 saves each segment's checkpoints at its chunks' places in the sequence's
// (Geometry::checkpoint_stride).
inline int segments(const Problem& p, int schedulers) {
  const std::int64_t warps = pass_warps(first_pass(p), schedulers) + pass_warps(second_pass(p), schedulers);
  if (warps > 4 * std::int64_t(schedulers)) return 1;
  return fused::sequence_segments(p.T, kSegmentTokens, kMinSegmentTokens);
}

// Warps a block of each pass takes in a pipelined forward at 4 keys a lane (few heads: each pass alone has a
// block an SM): 8, not gla's 4, so that a pass's blocks take half the SMs (64 at 1,24576,16,64, where 4 warps
// made 128 a pass) and, one block an SM by their registers, the two passes' blocks side by side never share
// an SM. At 4 warps they did (a segment's pass 1.4-2.2x its time alone, against 1.2x for 8 warps' blocks);
// 8 took gsa's fp16 and fp32 forward there to 0.94-0.95x and the fwd+bwd to 0.97-0.98x, bf16 the same
// (kernels/notes/gsa.md, version 39).
constexpr int kPipelinedPassWarps = 8;
inline fused::Geometry pipelined_geometry(fused::Geometry g) {
  if (g.KPT != 4 || g.V % (g.BV * kPipelinedPassWarps) != 0) return g;
  return fused::with_column_warps(g, kPipelinedPassWarps);
}

// Whether a forward whose backward follows in chunk form saves pass 2's states transposed (Hv^T, [V, M]
// each: Geometry::checkpoints_transposed), for that backward to transpose back: where the forward runs over
// segments with each pass's blocks on SMs of their own (both passes' blocks within `multiprocessors`), pass 2
// at fewer than 16 keys a lane. There its lanes' keys of a column leave in 16-byte stores (pass 1's way)
// instead of one 4-byte store a key to as many rows, the stores that made the saving pass 2 the forward's
// pace (0.163 ms a 1536-token segment against pass 1's 0.146 at 1,24576,16,64 bf16): the fwd+bwd 0.986-
// 0.991x with the transpose back. Where blocks share SMs the transpose cost more than the stores (1.02-1.03x;
// kernels/notes/gsa.md, version 52).
inline bool values_saved_transposed(const Problem& p, int multiprocessors) {
  const int schedulers = 4 * multiprocessors;
  if (segments(p, schedulers) <= 1) return false;
  const fused::Geometry keys = pipelined_geometry(pass_geometry(first_pass(p), schedulers)),
                        values = pipelined_geometry(pass_geometry(second_pass(p), schedulers));
  return values.KPT < 16 && launched_blocks(keys) + launched_blocks(values) <= multiprocessors;
}

// The tokens whose pass-2 checkpoints a pipelined forward's tail may read (gla_passes.cuh, Tail): those of
// every segment but the last two, which pass 2, a segment behind pass 1, has done about when pass 1 is. 0
// where the forward runs fewer than three segments.
inline std::int64_t tail_values_tokens(const Problem& p, int schedulers) {
  const int n = segments(p, schedulers);
  if (n <= 1) return 0;
  const std::int64_t length = segment_tokens(p.T, n), count = (p.T + length - 1) / length;
  return count >= 3 ? (count - 2) * length : 0;
}

// The backward's segments (fused::backward_segments): pass 1's scans of segment i (its column and row
// passes; dq from the checkpoints) beside pass 2's of segment i - 1, which hands them dp
// (gla_passes_backward.cuh).
// Unlike the forward's it paid at every head count measured (64 heads of D = 64 and 128, 128 heads of
// D = 64, 256 of D = 128; kernels/notes/gsa.md, version 22), so it takes no condition on warps.
inline int backward_segments(const Problem& p) {
  return fused::backward_segments(p.T);
}

}  // namespace flabench::gsa::gla_passes
