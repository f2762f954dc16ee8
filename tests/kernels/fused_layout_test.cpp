// fused_recurrent's layouts (kernels/common/fused_recurrent/layout.h): for every head dim pair the variant
// takes, many batch x head counts and GPUs of different sizes, the layout picked is whole (lanes, warps and
// blocks divide the state exactly, within the kernels' launch bounds); the shapes FLA's numbers were taken at
// get the layouts the H100 measurements chose; and the numerics battery reaches every layout an H100 can
// pick, and every way each op's scans' backward runs its passes (side by side, one after the other, over
// segments) where that backward runs, so none of them ships unchecked.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/common/fused_recurrent/layout.h"
#include "kernels/common/fused_recurrent/segments.h"
#include "kernels/gla/gla.h"
#include "kernels/registry.h"
#include "kernels/rwkv6/rwkv6.h"
#include "kernels/rwkv7/backward_in_chunks.h"
#include "kernels/simple_gla/simple_gla.h"
#include "suites/battery.h"

namespace flabench::fused {
namespace {

constexpr int kHeadDims[] = {16, 32, 64, 128, 256};
constexpr int kH100Schedulers = 4 * 132;

Geometry layout_of(std::int64_t B, std::int64_t H, std::int64_t K, std::int64_t V, int schedulers) {
  return make_geometry(B, 100, H, K, V, 1.0, kChunk, schedulers, /*bf16_inputs=*/true);
}

// g and the layouts geometry_within (variant.cuh) falls back to where a device's room does not hold it: one
// column a lane, then blocks of half the warps.
std::vector<Geometry> with_fallbacks(const Geometry& g, int schedulers) {
  std::vector<Geometry> layouts{g, with_columns_per_lane(g, 1, schedulers, /*bf16_inputs=*/true)};
  if (layouts.back().W == kMaxColumnWarps)
    layouts.push_back(with_column_warps(layouts.back(), kMaxColumnWarps / 2));
  return layouts;
}

// A column layout is whole: lanes = column slots x key groups within a warp, warps within the launch bound.
void expect_whole_columns(const Geometry& g) {
  EXPECT_TRUE(g.KPT == 4 || g.KPT == 8 || g.KPT == 16);
  EXPECT_TRUE(g.CPL == 1 || (g.CPL == 2 && g.KPT == 16));
  EXPECT_EQ(g.K % g.KPT, 0);
  EXPECT_EQ(g.KG * g.KPT, g.K);
  EXPECT_TRUE(key_groups_instantiated(g.KPT, g.KG)) << "rwkv7's forward takes KG at compile time";
  EXPECT_LE(g.BV / g.CPL * g.KG, 32);
  EXPECT_EQ(g.BV % g.CPL, 0);
  EXPECT_EQ(g.V % g.block_columns(), 0);
  EXPECT_LE(g.W, kMaxColumnWarps);
  EXPECT_EQ(1 << g.column_shift, g.block_columns());
  EXPECT_EQ(1 << g.group_shift, g.K / 8);
  // the conversion keeps a thread on one group of eight keys: the block's threads are a multiple of K/8
  EXPECT_EQ(32 * g.W % (g.K / 8), 0);
}

TEST(FusedLayout, EveryLayoutIsWhole) {
  for (int K : kHeadDims)
    for (int V : kHeadDims)
      for (std::int64_t heads : {1, 6, 16, 32, 33, 64, 256})
        for (int schedulers : {0, 4 * 60, kH100Schedulers, 1 << 30}) {
          const Geometry g = layout_of(1, heads, K, V, schedulers);
          SCOPED_TRACE(testing::Message()
                       << "K=" << K << " V=" << V << " heads=" << heads << " schedulers=" << schedulers);
          const std::vector<Geometry> layouts = with_fallbacks(g, schedulers);
          for (const Geometry& layout : layouts) expect_whole_columns(layout);
          const Geometry& one = layouts[1];
          EXPECT_EQ(one.CPL, 1);
          if (g.CPL == 1) {  // make_geometry's own layout, made the same way
            EXPECT_EQ(std::tuple(one.BV, one.W, one.column_shift, one.wide_chunks_pay),
                      std::tuple(g.BV, g.W, g.column_shift, g.wide_chunks_pay));
          }
          // row pass: value groups x rows within a warp, 4 warps at most, rows divide K
          EXPECT_TRUE(g.SPAN == 8 || g.SPAN == 16);
          EXPECT_EQ(g.VG * g.SPAN, g.V);
          EXPECT_LE(g.VG * g.BK, 32);
          EXPECT_LE(g.W_rows, 4);
          EXPECT_EQ(g.K % g.block_rows(), 0);
          // the forward's blocks of 8 warps at 8 keys a lane (eight_warp_forward): whole as well
          if (eight_warp_forward(g.KPT, g.B, g.H, g.V, g.block_columns(), schedulers)) {
            const Geometry wide = with_column_warps(g, 2 * g.W);
            EXPECT_EQ(g.W, 4);
            EXPECT_LE(wide.W, kMaxColumnWarps);
            EXPECT_EQ(g.V % wide.block_columns(), 0);
            EXPECT_EQ(1 << wide.column_shift, wide.block_columns());
          }
        }
}

// The column passes' lanes (column_lane_place): in every layout (and its fallbacks), each warp's active lanes
// hold each of its columns' keys once, a column's KG lanes are `slots` apart (what sum_over_strided_lanes
// sums over), and a lane's partial sums sit where finish_column_sums reads its column's key groups.
TEST(FusedLayout, ColumnLanesCoverTheirColumnsOnceAndSumWhereTheyAreRead) {
  for (int K : kHeadDims)
    for (int V : kHeadDims)
      for (std::int64_t heads : {1, 16, 64, 256})
        for (int schedulers : {0, kH100Schedulers, 1 << 30})
          for (const Geometry& g : with_fallbacks(layout_of(1, heads, K, V, schedulers), schedulers)) {
            SCOPED_TRACE(testing::Message() << "K=" << K << " V=" << V << " heads=" << heads << " schedulers="
                                            << schedulers << " CPL=" << g.CPL << " W=" << g.W);
            const int block_column = V / g.block_columns() - 1;  // the last block of a head's columns
            std::vector<int> held(std::size_t(g.block_columns()) * K, 0), owner(32 * g.W, -1);
            for (int thread = 0; thread < 32 * g.W; ++thread) {
              const ColumnLanePlace at = column_lane_place(g, thread, block_column);
              const int warp = thread / 32, lane = thread % 32;
              ASSERT_EQ(at.slots * g.KG, 32);
              EXPECT_EQ(lane, at.key_group * at.slots + lane % at.slots);
              EXPECT_EQ(at.k0, at.key_group * g.KPT);
              EXPECT_EQ(at.v, block_column * g.block_columns() + at.column);
              ASSERT_GE(at.place - warp * 32, 0);
              ASSERT_LT(at.place - warp * 32, 32);
              EXPECT_EQ(owner[at.place], -1) << "two lanes' partial sums in one place";
              owner[at.place] = thread;
              if (!at.active) continue;
              EXPECT_GE(at.column, warp * g.BV);
              EXPECT_LT(at.column + g.CPL, warp * g.BV + g.BV + 1);
              for (int m = 0; m < g.CPL; ++m)
                for (int i = 0; i < g.KPT; ++i) ++held[std::size_t(at.column + m) * K + at.k0 + i];
              // the lanes of this column: this lane's slot in every key group, `slots` apart
              for (int kg = 0; kg < g.KG; ++kg) {
                const ColumnLanePlace other =
                    column_lane_place(g, warp * 32 + kg * at.slots + lane % at.slots, block_column);
                EXPECT_EQ(other.column, at.column);
                EXPECT_EQ(other.key_group, kg);
                // finish_column_sums reads a column slot's KG partial sums side by side
                EXPECT_EQ(other.place, warp * 32 + lane % at.slots * g.KG + kg);
              }
            }
            for (std::size_t i = 0; i < held.size(); ++i) ASSERT_EQ(held[i], 1) << "key and column " << i;
          }
}

// The variant's shared-memory bound (shared_bytes in variant.cuh) sizes only the layouts of a GPU with no
// schedulers and of one with endless ones: every GPU's column and row layouts must be one of those two.
TEST(FusedLayout, EveryGpuTakesOneOfTheTwoLayoutsTheSharedMemoryBoundSizes) {
  const auto columns = [](const Geometry& g) { return std::tuple{g.KPT, g.CPL, g.BV, g.W}; };
  const auto rows = [](const Geometry& g) { return std::tuple{g.SPAN, g.BK, g.W_rows}; };
  for (int K : kHeadDims)
    for (int V : kHeadDims)
      for (std::int64_t heads : {1, 6, 16, 32, 33, 64, 256, 4096}) {
        const Geometry none = layout_of(1, heads, K, V, 0), endless = layout_of(1, heads, K, V, 1 << 30);
        for (int schedulers = 4; schedulers <= 1 << 16; schedulers *= 2) {
          const Geometry g = layout_of(1, heads, K, V, schedulers);
          SCOPED_TRACE(testing::Message()
                       << "K=" << K << " V=" << V << " heads=" << heads << " schedulers=" << schedulers);
          EXPECT_TRUE(columns(g) == columns(none) || columns(g) == columns(endless));
          EXPECT_TRUE(rows(g) == rows(none) || rows(g) == rows(endless));
        }
      }
}

// The layouts the H100 runs chose (kernels/notes/fused_recurrent.md, versions 8, 10, 12 and 15).
TEST(FusedLayout, ThePeerShapesGetTheLayoutsMeasuredBest) {
  const Geometry thin = layout_of(1, 16, 64, 64, kH100Schedulers);  // 1,24576,16,64: too few warps at 8 keys
  EXPECT_EQ(thin.KPT, 4);
  EXPECT_EQ(thin.SPAN, 8);
  const Geometry d64 = layout_of(4, 16, 64, 64, kH100Schedulers);  // 4,4096,16,64 and 8,1024,8,64
  EXPECT_EQ(d64.KPT, 8);
  EXPECT_EQ(d64.SPAN, 16);
  const Geometry wide = layout_of(4, 16, 128, 128, kH100Schedulers);  // 4,4096,16,128: two columns per lane
  EXPECT_EQ(wide.KPT, 16);
  EXPECT_EQ(wide.CPL, 2);
  EXPECT_EQ(wide.W, 8);
  const Geometry long128 = layout_of(2, 16, 128, 128, kH100Schedulers);  // 2,16384,16,128: one column
  EXPECT_EQ(long128.CPL, 1);
  EXPECT_EQ(long128.SPAN, 16);
  // the backward's passes side by side only where that measured faster (version 18)
  EXPECT_TRUE(thin.side_by_side);
  EXPECT_FALSE(d64.side_by_side);
  EXPECT_FALSE(wide.side_by_side);
  EXPECT_FALSE(long128.side_by_side);
  EXPECT_TRUE(layout_of(1, 16, 64, 128, kH100Schedulers).side_by_side);   // 1,8192,16,64 V = 128: 0.84x
  EXPECT_TRUE(layout_of(1, 4, 128, 128, kH100Schedulers).side_by_side);   // 1,8192,4,128: 0.73x
  EXPECT_FALSE(layout_of(1, 8, 128, 128, kH100Schedulers).side_by_side);  // simple_gla 1.48x
  EXPECT_FALSE(layout_of(1, 16, 128, 64, kH100Schedulers).side_by_side);  // up to 1.44x
  // the backward over segments where it measured faster (version 54): at most a warp a scheduler in rows
  EXPECT_TRUE(thin.over_segments);      // gla 0.87x, rwkv7 0.71x
  EXPECT_TRUE(d64.over_segments);       // gla 0.82x and 0.92x, rwkv7 0.94x and 0.97x
  EXPECT_FALSE(wide.over_segments);     // gla 1.01x, rwkv7 1.01x
  EXPECT_FALSE(long128.over_segments);  // gla 1.01x, rwkv7 1.00x
}

// Whether fused_recurrent's fwd+bwd of case `c` runs its scans' backward on an H100 planning for the case's
// shared memory (where the backward in chunk form does not run: backward_in_chunks.cuh, kernels/rwkv7/
// backward_in_chunks.h); gsa's has its own plan.
bool runs_the_scans_backward(const BatteryCase& c) {
  const DeviceLimits hopper = planned_limits(c, {227 * 1024, 90, 132});
  const Problem& p = c.problem;
  if (c.op->name == "rwkv7") return !rwkv7::backward_in_chunks(p, hopper);
  if (c.op->name == "gla") return !gla_chunked_backward().runs(p, hopper);
  if (c.op->name == "rwkv6") return !rwkv6_chunked_backward().runs(p, hopper);
  if (c.op->name == "simple_gla") return !simple_gla_chunked_backward().runs(p, hopper);
  ADD_FAILURE() << "no backward plan known for " << c.op->name;
  return false;
}

// Every (keys per lane, columns per lane, values per lane) an H100 picks for a fused_recurrent case of the
// battery's own shapes: the battery must reach each layout the peer shapes take, every way the scans'
// backward runs its passes, by each op that runs them, and the column passes' converter warps.
TEST(FusedLayout, TheBatteryReachesEveryLayoutTheH100Picks) {
  const BatterySpec spec{"fused_recurrent", Backend::cuda, {227 * 1024, 90, 132}, true};
  std::set<std::tuple<int, int, int>> reached;
  // op and the scans' backward's passes: side by side or one after the other (every op but rwkv7, whose
  // passes read each other), over segments (every op but rwkv6, whose bonus takes none)
  std::set<std::pair<std::string, std::string>> backward_ways;
  bool wide_at_16_keys = false;  // a case whose column passes take 32-token chunks at 16 keys a lane
  bool converters = false;       // ... of an op whose records leave room for converter warps there
  std::set<std::string> forward_converters_ops;  // ops whose forward takes converter warps at 4 keys a lane
  std::set<std::string> eight_warp_ops;  // op/dtype of fwd+bwd cases whose forwards take 8-warp blocks
  for (const BatteryCase& c : battery_cases(product_registry(), spec)) {
    if (c.op->name == "gsa" || c.skip_reason) continue;  // gsa's fused_recurrent has its own plan
    const Problem& p = c.problem;
    const Geometry g = layout_of(p.B, p.H, p.K, p.V, kH100Schedulers);
    reached.insert({g.KPT, g.CPL, g.SPAN});
    if (c.mode == Mode::fwdbwd && c.variant->name == "fused_recurrent" && runs_the_scans_backward(c)) {
      if (c.op->name != "rwkv7")
        backward_ways.insert({c.op->name, g.side_by_side ? "side by side" : "one after the other"});
      if (c.op->name != "rwkv6" && g.over_segments && backward_segments(p.T) > 1)
        backward_ways.insert({c.op->name, "over segments"});
    }
    const bool wide =
        make_geometry(p.B, p.T, p.H, p.K, p.V, 1.0, kChunk, kH100Schedulers, p.dtype == DType::bf16)
            .wide_chunks_pay;
    wide_at_16_keys |= wide;
    // variant.cuh adds converter warps there for every op but rwkv7 (fused_records_test.cpp: their room)
    converters |= wide && c.op->name != "rwkv7" && p.K == 128;
    if (forward_converters(g.KPT, g.B, g.H, g.V, g.block_columns(), kH100Schedulers))
      forward_converters_ops.insert(c.op->name);
    // a fwd+bwd case checks the forward that saves and the plain one (its inference outputs)
    if (c.mode == Mode::fwdbwd &&
        eight_warp_forward(g.KPT, g.B, g.H, g.V, g.block_columns(), kH100Schedulers))
      eight_warp_ops.insert(c.op->name + "/" + std::string(dtype_name(p.dtype)));
  }
  for (const char* op : {"rwkv7", "rwkv6"})  // the forms variant.cuh gives them
    for (const DType dtype : {DType::fp32, DType::fp16, DType::bf16})
      EXPECT_TRUE(eight_warp_ops.count(op + std::string("/") + std::string(dtype_name(dtype))))
          << "no battery case runs " << op << "'s " << dtype_name(dtype) << " forwards in 8-warp blocks";
  for (const char* op : {"rwkv7", "gla", "rwkv6", "simple_gla"})
    EXPECT_TRUE(forward_converters_ops.count(op))
        << "no battery case runs " << op << "'s forward with converters";
  EXPECT_TRUE(wide_at_16_keys) << "no battery case takes 32-token chunks at 16 keys a lane";
  EXPECT_TRUE(converters) << "no battery case runs the column passes' converter warps";
  for (const auto& layout :
       {std::tuple{4, 1, 8}, std::tuple{8, 1, 16}, std::tuple{16, 1, 16}, std::tuple{16, 2, 16}})
    EXPECT_TRUE(reached.count(layout)) << "no battery case takes KPT=" << std::get<0>(layout)
                                       << " CPL=" << std::get<1>(layout) << " SPAN=" << std::get<2>(layout);
  for (const char* op : {"gla", "rwkv6", "simple_gla"})
    for (const char* way : {"side by side", "one after the other"})
      EXPECT_TRUE(backward_ways.count({op, way}))
          << "no battery case runs " << op << "'s scans' backward passes " << way;
  for (const char* op : {"gla", "simple_gla", "rwkv7"})
    EXPECT_TRUE(backward_ways.count({op, "over segments"}))
        << "no battery case runs " << op << "'s scans' backward over segments";
}

// The column passes stage 32 tokens at a time only at 8 keys per lane with bf16 inputs (where their shared
// memory stays within 90 KiB); their chunks cover the sequence whatever its length.
TEST(FusedLayout, PackedCheckpointsAreTheChunkVariantsStatesInOrder) {
  // The forward saves checkpoint j (the state before token 16 j) where j % every == 0, at index
  // j >> checkpoint_shift of checkpoint_stride a head (forward.cuh). Packed for a chunk form of every * 16
  // tokens, chunk n's state must land at index n, every chunk of the sequence once, within the stride; not
  // packed, at j itself.
  for (int every : {1, 2, 4})
    for (std::int64_t T : {1, 15, 16, 17, 63, 64, 65, 127, 128, 1000, 4096})
      for (bool packed : {false, true}) {
        SCOPED_TRACE(testing::Message() << "every " << every << " T " << T << (packed ? " packed" : ""));
        const Geometry g = with_checkpoints_every(
            make_geometry(1, T, 2, 64, 64, 1.0, kChunk, kH100Schedulers, true), every, packed);
        const int chunk_tokens = every * kChunk, chunks = int((T + chunk_tokens - 1) / chunk_tokens);
        std::vector<int> saved;
        for (int j = 0; j < g.chunks; ++j)
          if (j % g.checkpoint_every == 0) saved.push_back(j >> g.checkpoint_shift);
        ASSERT_EQ(int(saved.size()), chunks);
        for (int n = 0; n < chunks; ++n) EXPECT_EQ(saved[n], packed ? n : n * every);
        EXPECT_EQ(g.checkpoint_stride, packed ? chunks : g.chunks);
        EXPECT_LT(saved.back(), g.checkpoint_stride);
      }
}

TEST(FusedLayout, ColumnChunksAreWideOnlyAt8KeysPerLaneWithBf16Inputs) {
  for (bool bf16 : {true, false})
    for (int K : kHeadDims)
      for (std::int64_t heads : {1, 16, 64})
        for (std::int64_t T : {1, 15, 16, 17, 31, 32, 33, 1000}) {
          const Geometry g = make_geometry(4, T, heads, K, 64, 1.0, kChunk, kH100Schedulers, bf16);
          SCOPED_TRACE(testing::Message()
                       << "bf16=" << bf16 << " K=" << K << " heads=" << heads << " T=" << T);
          EXPECT_EQ(g.column_tokens, g.KPT == 8 && bf16 ? kWideChunk : kChunk);
          EXPECT_GE(g.column_chunks * g.column_tokens, T);
          EXPECT_LT((g.column_chunks - 1) * g.column_tokens, T);
        }
  // the peer shapes at B*H = 64, D = 64 take them
  EXPECT_EQ(make_geometry(4, 4096, 16, 64, 64, 1.0, kChunk, kH100Schedulers, true).column_tokens, kWideChunk);
  EXPECT_EQ(make_geometry(8, 1024, 8, 64, 64, 1.0, kChunk, kH100Schedulers, true).column_tokens, kWideChunk);
}

// A forward's converter warps at 4 keys a lane only where each block has an SM (versions 69 and 70).
TEST(FusedLayout, ForwardConvertersAt4KeysOnlyWhereEachBlockHasItsSm) {
  const auto converters = [](std::int64_t B, std::int64_t H, std::int64_t K, std::int64_t V) {
    const Geometry g = layout_of(B, H, K, V, kH100Schedulers);
    return forward_converters(g.KPT, g.B, g.H, g.V, g.block_columns(), kH100Schedulers);
  };
  EXPECT_TRUE(converters(1, 16, 64, 64));   // 1,24576,16,64: 128 blocks, one scanning warp a scheduler
  EXPECT_TRUE(converters(1, 2, 32, 64));    // few heads at K = 32
  EXPECT_FALSE(converters(1, 32, 64, 64));  // 4 keys a lane, but 256 blocks: two share an SM
  EXPECT_FALSE(converters(4, 16, 64, 64));  // 4,4096,16,64 and 8,1024,8,64: 8 keys a lane, 1.39-1.59x slower
  EXPECT_FALSE(converters(2, 16, 128, 128));  // 16 keys a lane: 1.05-1.19x slower
  EXPECT_FALSE(converters(1, 2, 128, 128));
}

// A forward's blocks of 8 warps at 8 keys a lane only where each then has an SM (version 75): the 64-head
// D = 64 peer shapes (128 blocks) take them, 128 heads (256 blocks) and the 4- and 16-key layouts do not.
TEST(FusedLayout, EightWarpForwardAt8KeysOnlyWhereEachBlockHasItsSm) {
  const auto eight = [](std::int64_t B, std::int64_t H, std::int64_t K, std::int64_t V) {
    const Geometry g = layout_of(B, H, K, V, kH100Schedulers);
    return eight_warp_forward(g.KPT, g.B, g.H, g.V, g.block_columns(), kH100Schedulers);
  };
  EXPECT_TRUE(eight(4, 16, 64, 64));     // 4,4096,16,64
  EXPECT_TRUE(eight(8, 8, 64, 64));      // 8,1024,8,64
  EXPECT_TRUE(eight(1, 40, 64, 64));     // 8 keys a lane from 33 heads on (at K = V = 64): 80 blocks
  EXPECT_FALSE(eight(8, 16, 64, 64));    // 256 blocks of 8 warps: two would share an SM
  EXPECT_FALSE(eight(1, 16, 64, 64));    // 1,24576,16,64: 4 keys a lane (converter warps there)
  EXPECT_FALSE(eight(4, 16, 128, 128));  // 16 keys a lane: 8 warps a block already
  EXPECT_FALSE(eight(4, 64, 32, 32));    // 8 keys a lane, but a head's V = 32 fills one block of 4 warps
  const Geometry g = layout_of(4, 16, 64, 64, kH100Schedulers);
  const Geometry wide = with_column_warps(g, 2 * g.W);
  EXPECT_EQ(wide.block_columns(), 32);
  EXPECT_EQ(wide.column_shift, 5);
}

// 32-token chunks at 16 keys a lane (wide_chunks_at_16_keys) only where every block has an SM of its own:
// the D = 128 peer shapes (128 blocks) take them, B8 T2048 H32 D128 (512 blocks) and fp16 do not, nor do
// K = 256 or the 8- and 4-key layouts (D = 64, which have their own wide chunks in bf16).
TEST(FusedLayout, WideChunksAt16KeysOnlyWhereEachBlockHasItsSm) {
  const auto wide = [](std::int64_t B, std::int64_t H, std::int64_t K, std::int64_t V, bool bf16) {
    return make_geometry(B, 4096, H, K, V, 1.0, kChunk, kH100Schedulers, bf16).wide_chunks_pay;
  };
  EXPECT_TRUE(wide(4, 16, 128, 128, true));   // 4,4096,16,128: two columns a lane, 128 blocks
  EXPECT_TRUE(wide(2, 16, 128, 128, true));   // 2,16384,16,128: one column a lane, 128 blocks
  EXPECT_FALSE(wide(8, 32, 128, 128, true));  // 512 blocks: 1.17-1.21x slower wide
  EXPECT_FALSE(wide(4, 16, 128, 128, false));
  EXPECT_FALSE(wide(1, 4, 256, 256, true));
  EXPECT_FALSE(wide(4, 16, 64, 64, true));
  EXPECT_FALSE(wide(1, 16, 64, 64, true));
  const Geometry g = make_geometry(2, 100, 16, 128, 128, 1.0, kChunk, kH100Schedulers, true);
  const Geometry w = with_wide_column_chunks(g);
  EXPECT_EQ(w.column_tokens, kWideChunk);
  EXPECT_EQ(w.column_chunks, 4);  // 100 tokens
  EXPECT_EQ(w.chunks, g.chunks);  // the checkpoints stay every kChunk tokens
}

// A low-rank forward that saves nothing at two columns a lane (plain_forward_takes_two_columns, version 90)
// only at 16 keys and one column a lane, bf16, where the same blocks (half the warps each) have an SM each:
// 2,16384,16,128 takes it; fp16 and fp32 (measured the same), 4,4096,16,128 (two columns already), 512 blocks
// and the 8-key layouts do not.
TEST(FusedLayout, PlainForwardAtTwoColumnsOnlyWhereItKeepsItsBlocksEachOnAnSm) {
  const auto takes = [](std::int64_t B, std::int64_t H, std::int64_t K, std::int64_t V, bool bf16) {
    const Geometry g = make_geometry(B, 4096, H, K, V, 1.0, kChunk, kH100Schedulers, bf16);
    const Geometry two = with_two_columns_a_lane(g, kH100Schedulers, bf16);
    return plain_forward_takes_two_columns(g.KPT, g.CPL, g.block_columns(), two.block_columns(), g.B, g.H,
                                           g.V, bf16, kH100Schedulers);
  };
  EXPECT_TRUE(takes(2, 16, 128, 128, true));    // 2,16384,16,128: 128 blocks, 0.92-0.99x
  EXPECT_TRUE(takes(1, 16, 128, 128, true));    // 64 blocks
  EXPECT_FALSE(takes(2, 16, 128, 128, false));  // fp16 and fp32: the same speed
  EXPECT_FALSE(takes(4, 16, 128, 128, true));   // 4,4096,16,128: two columns a lane already
  EXPECT_FALSE(takes(8, 32, 128, 128, true));   // 512 blocks: two or more an SM
  EXPECT_FALSE(takes(4, 16, 64, 64, true));     // 8 keys a lane
  const Geometry g = make_geometry(2, 100, 16, 128, 128, 1.0, kChunk, kH100Schedulers, true);
  const Geometry two = with_two_columns_a_lane(g, kH100Schedulers, true);
  EXPECT_EQ(two.CPL, 2);
  EXPECT_EQ(two.W, g.W / 2);
  EXPECT_EQ(two.block_columns(), g.block_columns());
  EXPECT_EQ(two.column_tokens, g.column_tokens);
  expect_whole_columns(two);
}

}  // namespace
}  // namespace flabench::fused
