// How fused_recurrent spreads a head over threads: keys and columns per lane of the column passes, values per
// lane of the row pass, warps per block, chosen by the problem's size and the GPU's scheduler count. The same
// numbers on the host (launches, shared-memory bounds) and in the kernels. Host-safe (no device code), so
// tests/kernels/fused_layout_test.cpp checks on the CPU that every layout it can pick is whole and that the
// battery's shapes reach each of them.
//
// Column passes (forward, backward dS^T reductions): lane = key group * 32 / KG + column slot; a lane keeps
// KPT keys of CPL (1 or 2) state columns in registers (KPT = 4 or 8 for K <= 64, 16 above), KG = K / KPT
// lanes share their columns and reduce over K, a warp holds BV columns, a block W warps, and the blocks of a
// head split V. Row pass (backward reductions over V): lane = row * VG + value group; a lane keeps SPAN (8
// or 16) columns of one state row, VG = V / SPAN lanes share a row, a warp holds BK rows, a block W_rows
// warps, and the blocks split K. kernels/notes/fused_recurrent.md has the measurements behind these choices.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cstdint>
#include <type_traits>
#include <utility>

namespace flabench::fused {

constexpr int kChunk = 16;      // tokens staged at a time (the row pass; the column passes' default), and the
                                // checkpoint interval of the backward
constexpr int kWideChunk = 32;  // the column passes' chunk where its shared memory allows (column_tokens)
// whole checkpoint intervals (the forward stores one every kChunk tokens inside a chunk), and at most a
// warp's lanes (HeadGates holds a chunk's per-head gates one per lane)
static_assert(kWideChunk % kChunk == 0 && kWideChunk <= 32);
constexpr int kStages = 2;  // chunks staged (staging.cuh): one in flight while the other is used

// Keys per lane in the column passes. A scan is latency-bound while each scheduler has at most one warp: then
// fewer keys per lane (more, shorter warps) shortens each token's step, down to 4 keys where 8 would leave
// schedulers idle (`schedulers`: the device's SMs x 4; 0 when unknown). Past K = 64 the per-block work of
// more, thinner blocks costs more than it hides.
__host__ __device__ constexpr int keys_per_lane(int K, std::int64_t state_elements, std::int64_t schedulers) {
  if (K > 64) return 16;
  return K >= 16 && state_elements / (32 * 8) < schedulers ? 4 : 8;
}

// The key groups (K / KPT) a head dim of 16 to 256 leaves at each KPT keys_per_lane picks: what a kernel
// that takes KG at compile time is instantiated for (rwkv7's forward, whose per-token sum of a^T S over a
// column's KG lanes then needs no branch per shuffle level: forward.cuh).
template <int KPT>
using KeyGroupCounts = std::conditional_t<
    KPT == 4, std::integer_sequence<int, 4, 8, 16>,
    std::conditional_t<KPT == 8, std::integer_sequence<int, 2, 4, 8>, std::integer_sequence<int, 8, 16>>>;

template <int... Counts>
__host__ __device__ constexpr bool is_one_of(std::integer_sequence<int, Counts...>, int n) {
  return ((n == Counts) || ...);
}

// Whether KeyGroupCounts<KPT> has KG (tests/kernels/fused_layout_test.cpp checks every layout's).
__host__ __device__ constexpr bool key_groups_instantiated(int KPT, int KG) {
  return KPT == 4   ? is_one_of(KeyGroupCounts<4>{}, KG)
         : KPT == 8 ? is_one_of(KeyGroupCounts<8>{}, KG)
                    : KPT == 16 && is_one_of(KeyGroupCounts<16>{}, KG);
}

__host__ __device__ constexpr int log2_of(int n) {
  int shift = 0;
  while ((1 << shift) < n) ++shift;
  return shift;
}

// Columns per lane in the column passes: 2 at 16 keys per lane where 1 would give each scheduler two warps or
// more (the passes are throughput-bound there, and a lane's key vectors, read from shared memory each token,
// then serve two columns), else 1.
__host__ __device__ constexpr int columns_per_lane(int KPT, std::int64_t state_elements,
                                                   std::int64_t schedulers) {
  return KPT == 16 && state_elements / (32 * 16) >= 2 * schedulers ? 2 : 1;
}

// Values per lane in the row pass: 8 where 16 would leave schedulers idle or with half a warp's work (the
// pass is latency-bound there, and thinner lanes halve each warp's token step), else 16. (With as many warps
// as schedulers 8 is no faster, and at 2,16384,16,128 it is 17-31% slower.)
__host__ __device__ constexpr int values_per_lane(std::int64_t state_elements, std::int64_t schedulers) {
  return state_elements / (32 * 8) < schedulers ? 8 : 16;
}
// floats per SPAN values of a value vector in shared memory (+4, for conflict-free float4 reads as above)
__host__ __device__ constexpr int padded_values(int V, int SPAN) {
  return V / SPAN * (SPAN + 4);
}

// Whether the backward's column and row passes run side by side, where neither reads the other (all but the
// low-rank term): where the column pass has 4 keys per lane (8 would leave schedulers idle: its warps are
// alone on theirs) or the row pass's warps fill at most half the schedulers. Then the other pass's warps
// take schedulers that would idle: fwd+bwd 0.70-0.86x of one pass after the other at B = 1, H = 4..16,
// K = 64 (V = 64, 128) and K = 128 (H = 4, 8, V = 64; H = 4, V = 128), 0.80-0.83x at 1,24576,16,64. Beyond,
// the passes' blocks compete for the same SMs' issue slots and the pair is often slower (B*H = 64 at D = 64:
// up to 1.19x; 1,8192,16,128 and 2,16384,16,128: up to 1.5x; 1,8192,8,128 0.85x for gla, 1.48x for
// simple_gla). kernels/notes/fused_recurrent.md, version 18.
__host__ __device__ constexpr bool passes_side_by_side(std::int64_t state_elements, int KPT, int SPAN,
                                                       std::int64_t schedulers) {
  return KPT == 4 || 2 * (state_elements / (32 * SPAN)) <= schedulers;
}

// Whether the backward runs over segments of the sequences (variant.cuh, run_backward_pipelined: the column
// pass segment after segment, the row passes of several segments at once beside it), where the sequences
// are long enough for segments (segments.h): where the row pass over the whole sequence holds at most one
// warp a scheduler. There fwd+bwd took 0.71-0.97x of the passes over the whole sequence (gla at D = 64
// 0.82-0.92x; rwkv7, whose passes cannot run side by side, 0.71x at 1,24576,16,64); at two warps a
// scheduler (D = 128, 32 and 64 heads) 1.00-1.01x. kernels/notes/fused_recurrent.md, version 54.
__host__ __device__ constexpr bool backward_over_segments(std::int64_t state_elements, int SPAN,
                                                          std::int64_t schedulers) {
  return state_elements / (32 * SPAN) <= schedulers;
}

// Tokens a column pass stages and converts at a time: 32 at 8 keys per lane with bf16 inputs, whose records
// keep the key vectors packed (column_record.h; each chunk's fixed work, the staging's setup, the barrier,
// the loops' entries, then serves twice the tokens, and ring, records and partial sums stay within 90 KiB:
// two blocks an SM on a Hopper, one on an RTX 40xx), else 16 (fp16's fp32 records would take rwkv7 at K = 64
// to 104 KiB; 4 keys per lane and 16 keys take more too; at 16 keys variant.cuh widens them where each
// block has an SM to itself: wide_chunks_at_16_keys).
__host__ __device__ constexpr int column_chunk_tokens(int KPT, bool bf16_inputs) {
  return KPT == 8 && bf16_inputs ? kWideChunk : kChunk;
}

// Whether a column pass's blocks (B * H * V / block_columns of them) are no more than the SMs (`schedulers` /
// 4): then each block has an SM to itself.
__host__ __device__ constexpr bool each_block_has_an_sm(int B, int H, int V, int block_columns,
                                                        std::int64_t schedulers) {
  return std::int64_t(B) * H * (V / block_columns) <= schedulers / 4;
}

// Whether the column passes may stage 32 tokens a chunk at 16 keys a lane too (bf16, K <= 128): where their
// blocks are no more than the SMs (`schedulers` / 4), one block an SM, so the wider chunk's shared memory
// costs no resident block and each chunk's fixed work (staging, conversion, barrier, sums) serves twice the
// tokens. Measured (kernels/notes/fused_recurrent.md, version 43): the D = 128 peer shapes' forward
// 0.85-0.95x, fwd+bwd 0.92-0.98x; at B8 T2048 H32 D128 (512 blocks, two or more an SM) the forward 1.17-1.21x
// slower, so there the chunks stay 16 tokens. variant.cuh widens only where the device's shared memory
// holds the wider chunk.
__host__ __device__ constexpr bool wide_chunks_at_16_keys(int B, int H, int K, int V, int KPT,
                                                          int block_columns, bool bf16_inputs,
                                                          std::int64_t schedulers) {
  return KPT == 16 && bf16_inputs && K <= 128 && each_block_has_an_sm(B, H, V, block_columns, schedulers);
}

// Whether a forward takes converter warps beside its scanning ones (column_feed.cuh) at 4 keys a lane: where
// each block has an SM to itself. There a scheduler holds one scanning warp, latency-bound (rwkv7: an
// instruction every 4.8 cycles), and the block's own conversion of each chunk, between barriers, was a
// quarter of rwkv7's instructions and stall samples (ncu, 1,24576,16,64). Converter warps took it off the
// scan there: rwkv7 0.85-0.86x in every dtype, gla and rwkv6 0.71-0.77x, simple_gla 0.94-0.95x, gsa's bf16
// forward (its two passes side by side) 0.87x. Where blocks share an SM (8 keys a lane: 8,1024,8,64,
// 4,4096,16,64) the converters' registers cost rwkv7 the second block, 1.39-1.59x slower (and with 8
// warps a block, one an SM, rwkv7 1.01x, simple_gla 1.06x; gla 0.91x and rwkv6 0.86x, not kept: version
// 71); at 16 keys with 16-token chunks 1.05-1.19x slower, the scan there bound by issue and shared memory
// (kernels/notes/fused_recurrent.md, versions 69 and 70). At 16 keys with wide chunks the forms without the
// low-rank term take converters too (variant.cuh, column_pass).
__host__ __device__ constexpr bool forward_converters(int KPT, int B, int H, int V, int block_columns,
                                                      std::int64_t schedulers) {
  return KPT == 4 && each_block_has_an_sm(B, H, V, block_columns, schedulers);
}

// Whether a forward at 8 keys a lane takes blocks of 8 warps rather than 4 (twice the columns): where V
// holds the wider blocks and each of them then has an SM to itself. A block converts its chunks' key vectors
// whole for its columns, so 4-warp blocks (two an SM) convert each head's keys four times at V = 64, 8-warp
// blocks (one an SM, as many warps) twice. variant.cuh takes it for the forms whose conversion is the
// heaviest, rwkv7's five key vectors and rwkv6's bonus: their forwards 0.93-0.96x in bf16 and fp32,
// 0.98-0.99x in fp16, at 8,1024,8,64 and 4,4096,16,64 (gla's 0.97x and simple_gla's 1.03-1.04x slower at stop
// 62, and gsa's passes share gla's form: kernels/notes/fused_recurrent.md, versions 71 and 75).
__host__ __device__ constexpr bool eight_warp_forward(int KPT, int B, int H, int V, int block_columns,
                                                      std::int64_t schedulers) {
  return KPT == 8 && V % (2 * block_columns) == 0 &&
         each_block_has_an_sm(B, H, V, 2 * block_columns, schedulers);
}

// Whether a low-rank form's forward that saves nothing, at 16 keys and one column a lane in bf16, takes
// `two` instead (with_two_columns_a_lane's: two columns a lane in blocks of half the warps): where `two`
// keeps the block's columns, and so its blocks, and each of them has an SM. A scheduler then runs one warp
// where it ran two, and each token's five packed key vectors are read and unpacked once for two columns.
// Measured for rwkv7 (kernels/notes/fused_recurrent.md, versions 76 and 90): the forward at 2,16384,16,128
// 0.92-0.99x on three H200s; fp16 and fp32 the same, so they keep one column; the saving forward at two
// columns 1.02x slower, so it keeps one too. At two columns, fp32 records (fewer unpacks), a^T S begun a
// token early, converter warps and the conversion's reads before its stores were each slower (versions
// 90-92).
__host__ __device__ constexpr bool plain_forward_takes_two_columns(int KPT, int CPL, int block_columns,
                                                                   int two_block_columns, int B, int H, int V,
                                                                   bool bf16_inputs,
                                                                   std::int64_t schedulers) {
  return bf16_inputs && KPT == 16 && CPL == 1 && two_block_columns == block_columns &&
         each_block_has_an_sm(B, H, V, block_columns, schedulers);
}

// The largest power of two <= limit that divides n.
__host__ __device__ constexpr int power_of_two_divisor(int n, int limit) {
  int p = 1;
  while (p * 2 <= limit && n % (p * 2) == 0) p *= 2;
  return p;
}

struct Geometry {
  int B = 0, T = 0, H = 0, K = 0, V = 0;
  // tokens from one sequence's first row to the next's in the tensors: T, or more where a pass runs over a
  // segment of each sequence (T of its tokens, the pointers at the segment's first row)
  int sequence_stride = 0;
  int chunks = 0;
  // checkpoints from one head's first to the next's (the forward's saves, the backward's row pass reads):
  // chunks, or the whole sequence's where a pass runs over a segment (the checkpoints pointer at the
  // segment's first)
  int checkpoint_stride = 0;
  // the forward saves every checkpoint_every-th checkpoint (a power of two; the others stay unwritten): 1,
  // but where a backward reads fewer (one in chunk form reads one a chunk); at checkpoint_shift below
  int checkpoint_every = 1;
  float scale = 1;
  // column passes: KPT keys per lane, KG lanes per column, BV columns per warp, W warps per block
  int KPT = 8, CPL = 1, KG = 1, BV = 1, W = 1;  // CPL: columns per lane; BV counts columns
  int group_shift = 0, column_shift = 0;  // log2 of K / 8 (the conversion's groups of keys) and of BV * W
  // row pass: SPAN values per lane, VG lanes per row, BK rows per warp, W_rows warps per block
  int SPAN = 16, VG = 1, BK = 1, W_rows = 1;
  bool side_by_side = false;   // the backward's two passes at once (passes_side_by_side), where independent
  bool over_segments = false;  // the backward over segments (backward_over_segments), where T allows
  // tokens whose partial sums one reduction over V of the row pass finishes (backward_rows.cuh): 8 where
  // the room for them costs no resident block (variant.cuh), else 4
  int row_sum_tokens = 4;
  // the column passes' chunks: column_tokens tokens each (column_chunk_tokens), column_chunks of them
  int column_tokens = kChunk, column_chunks = 0;
  bool wide_chunks_pay = false;  // wide_chunks_at_16_keys: variant.cuh widens them where they fit
  // checkpoint j is saved at index j >> checkpoint_shift: 0, or log2(checkpoint_every) where the saved ones
  // are packed (the chunk variant's states, one before every chunk: checkpoint_stride counts them). Last:
  // the fields before it keep their offsets in the kernels' parameters (placed among them, it moved every
  // later field and changed the registers of kernels that never read it, kernels/notes/fused_recurrent.md,
  // version 63)
  int checkpoint_shift = 0;
  // below 16 keys a lane: the saved states transposed, [V, K] each (a lane's keys of a column in 16-byte
  // stores), where a backward transposes them back (gsa's pass 2: kernels/notes/gsa.md, version 52). After
  // checkpoint_shift for the same reason.
  bool checkpoints_transposed = false;
  __host__ __device__ int block_columns() const { return BV * W; }
  // Where the saved state before token index * kChunk of head bh starts (a [K, V] state each, the saved
  // ones packed where checkpoint_shift says).
  __host__ __device__ std::int64_t checkpoint_offset(int bh, int index) const {
    return (std::int64_t(bh) * checkpoint_stride + (index >> checkpoint_shift)) * K * V;
  }
  __host__ __device__ int block_rows() const { return BK * W_rows; }
};

// W: the warps of a head that share one block, its staging and its conversion (each warp of a block has its
// own scheduler, so a block of 4 is as fast per token as 4 blocks of 1 and does a quarter of the shared
// work). Up to 4; 8 at 16 keys per lane, where registers would allow 4 blocks of 4 warps per SM but shared
// memory (the converted chunk) only 3, which left a second, mostly idle wave of blocks at B*H = 64; 8 in some
// forwards at 8 keys a lane too (eight_warp_forward).
constexpr int kMaxColumnWarps = 8;
// Converter warps beside them where a block has an SM to itself (column_feed.cuh): one warp alone could not
// keep up with the scan (rwkv6 1.13-1.39x slower); four beat two (kernels/notes/fused_recurrent.md,
// version 50).
constexpr int kConverterWarps = 4;

// g with the column passes' chunks at `tokens` tokens, as many as cover the sequence.
inline Geometry with_column_chunks(Geometry g, int tokens) {
  g.column_tokens = tokens;
  g.column_chunks = (g.T + tokens - 1) / tokens;
  return g;
}
// g's column passes at CPL columns a lane (1, or 2 at 16 keys a lane): the columns a warp and the warps a
// block that follow, and whether wide chunks pay there.
inline Geometry with_columns_per_lane(Geometry g, int CPL, std::int64_t schedulers, bool bf16_inputs) {
  g.CPL = CPL;
  g.BV = power_of_two_divisor(g.V / g.CPL, 32 / g.KG) * g.CPL;
  const int max_warps = g.KPT >= 16 ? kMaxColumnWarps : 4;
  g.W = 1;
  while (g.W < max_warps && g.V % (g.BV * g.W * 2) == 0) g.W *= 2;
  g.column_shift = log2_of(g.block_columns());
  g.wide_chunks_pay =
      wide_chunks_at_16_keys(g.B, g.H, g.K, g.V, g.KPT, g.block_columns(), bf16_inputs, schedulers);
  return g;
}

inline Geometry make_geometry(std::int64_t B, std::int64_t T, std::int64_t H, std::int64_t K, std::int64_t V,
                              double scale, int chunk, int schedulers, bool bf16_inputs) {
  Geometry g;
  g.B = int(B), g.T = int(T), g.H = int(H), g.K = int(K), g.V = int(V);
  g.sequence_stride = g.T;
  g.chunks = int((T + chunk - 1) / chunk);
  g.checkpoint_stride = g.chunks;
  g.scale = float(scale);
  g.KPT = keys_per_lane(g.K, B * H * K * V, schedulers);
  g.KG = g.K / g.KPT;
  g.group_shift = log2_of(g.K / 8);
  g.SPAN = values_per_lane(B * H * K * V, schedulers);
  g.VG = g.V / g.SPAN;
  g.BK = power_of_two_divisor(g.K, 32 / g.VG);
  while (g.W_rows < 4 && g.K % (g.BK * g.W_rows * 2) == 0) g.W_rows *= 2;
  g.side_by_side = passes_side_by_side(B * H * K * V, g.KPT, g.SPAN, schedulers);
  g.over_segments = backward_over_segments(B * H * K * V, g.SPAN, schedulers);
  g = with_column_chunks(g, column_chunk_tokens(g.KPT, bf16_inputs));
  return with_columns_per_lane(g, columns_per_lane(g.KPT, B * H * K * V, schedulers), schedulers,
                               bf16_inputs);
}

// Where the lane of a column pass sits (ColumnLane in column_chunk.cuh takes it from its thread and block):
// lane = key group * slots + column slot within the warp (slots = 32 / KG); it holds keys [k0, k0 + KPT) of
// the CPL neighbouring columns from `column` (within the block; v in the head). Host-safe, so
// tests/kernels/fused_layout_test.cpp checks on the CPU that a warp's lanes cover its columns and keys once,
// that a column's lanes are `slots` apart (the strided shuffle sum), and that `place` is where
// finish_column_sums reads the lane's partial sums.
struct ColumnLanePlace {
  int column;     // the first of the lane's columns, within the block
  int key_group;  // which KPT keys
  bool active;    // false past the warp's BV columns (small V): such lanes only help stage and convert
  int k0, v;      // the first key, and the first column in the head
  int slots;      // column slots a warp: a column's KG lanes are this many apart
  int place;      // where its partial sums sit among the warp's: a column slot's KG side by side
};

__host__ __device__ inline ColumnLanePlace column_lane_place(const Geometry& g, int thread,
                                                             int block_column) {
  const int lane = thread & 31, warp = thread >> 5, slots = 32 / g.KG, slot = lane % slots;
  ColumnLanePlace at{};
  at.slots = slots;
  at.key_group = lane / slots;
  at.active = slot * g.CPL < g.BV;
  at.column = warp * g.BV + (at.active ? slot * g.CPL : 0);
  at.k0 = at.key_group * g.KPT;
  at.v = block_column * g.block_columns() + at.column;
  at.place = warp * 32 + slot * g.KG + at.key_group;
  return at;
}

// g saving every `every`-th checkpoint (a power of two), `packed` one after another (the chunk variant's
// states, one before every chunk of every * kChunk tokens) or else in their own places.
inline Geometry with_checkpoints_every(Geometry g, int every, bool packed) {
  g.checkpoint_every = every;
  if (packed) {
    g.checkpoint_shift = log2_of(every);
    g.checkpoint_stride = (g.chunks + every - 1) / every;
  }
  return g;
}

// g with W warps a column pass's block.
inline Geometry with_column_warps(Geometry g, int W) {
  g.W = W;
  g.column_shift = log2_of(g.block_columns());
  return g;
}

// g (16 keys, one column a lane) at two columns a lane in blocks of at most half its warps: the same columns
// a block where V allows (plain_forward_takes_two_columns checks it).
inline Geometry with_two_columns_a_lane(const Geometry& g, std::int64_t schedulers, bool bf16_inputs) {
  Geometry two = with_columns_per_lane(g, 2, schedulers, bf16_inputs);
  if (two.W > g.W / 2) two = with_column_warps(two, g.W / 2 > 0 ? g.W / 2 : 1);
  return two;
}

// g with the column passes' chunks at kWideChunk tokens.
inline Geometry with_wide_column_chunks(const Geometry& g) {
  return with_column_chunks(g, kWideChunk);
}

}  // namespace flabench::fused
