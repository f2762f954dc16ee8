// What fused_recurrent's blocks stage and keep per token, on the CPU: the stage plan groups consecutive
// segments of one shape into runs (one address computation per copy for the whole run) and lays each
// segment out on 16-byte boundaries; the column passes' converted records keep every vector a lane reads
// 16-byte aligned (float4 and uint4 reads) and spread the key groups a warp reads over distinct banks.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/common/fused_recurrent/column_record.h"
#include "kernels/common/fused_recurrent/stage_plan.h"
#include "kernels/gla/gla.h"
#include "kernels/gsa/gla_passes_plan.h"
#include "kernels/rwkv6/rwkv6.h"
#include "kernels/rwkv7/rwkv7.h"
#include "kernels/simple_gla/simple_gla.h"

namespace flabench::fused {
namespace {

TEST(StagePlan, GroupsConsecutiveSegmentsOfOneShape) {
  const char q[1] = {}, k[1] = {}, g[1] = {}, v[1] = {};
  StagePlan plan;
  // gla's column pass at K = 64 in bf16, a block of 16 value columns
  EXPECT_EQ(plan.add(q, 2, 64, 64), 0);
  EXPECT_EQ(plan.add(k, 2, 64, 64), 1);
  EXPECT_EQ(plan.add(g, 2, 64, 64), 2);
  EXPECT_EQ(plan.add(v, 2, 64, 16, 16), 3);
  ASSERT_EQ(plan.num_groups, 2);
  EXPECT_EQ(plan.groups[0].run, 3);
  EXPECT_EQ(plan.groups[0].bases[2], g);
  EXPECT_EQ(plan.groups[0].granule_shift, 4);
  EXPECT_EQ(plan.groups[0].piece_shift, 3);  // 128 bytes: eight 16-byte copies a token
  EXPECT_EQ(plan.groups[0].segment_bytes, 128);
  EXPECT_EQ(plan.groups[1].run, 1);
  EXPECT_EQ(plan.groups[1].block_bytes, 32);
  EXPECT_EQ(plan.groups[1].smem_offset, 384);
  EXPECT_EQ(plan.segment_offsets[3], 384);
  EXPECT_EQ(plan.record_bytes, 416);
  EXPECT_EQ(plan.slot_bytes(), kChunk * 416);
}

TEST(StagePlan, SmallSegmentsCopyInSmallerGranulesAndPadTo16Bytes) {
  const char a[1] = {}, b[1] = {};
  StagePlan plan;
  plan.add(a, 2, 16, 4, 4);  // 8 bytes
  plan.add(b, 2, 16, 2, 2);  // 4 bytes: another shape
  ASSERT_EQ(plan.num_groups, 2);
  EXPECT_EQ(plan.groups[0].granule_shift, 3);
  EXPECT_EQ(plan.groups[1].granule_shift, 2);
  EXPECT_EQ(plan.segment_offsets[1], 16);
  EXPECT_EQ(plan.record_bytes, 32);
}

TEST(StagePlan, ARunPastItsLimitStartsAGroupAndTooManyShapesAreRefused) {
  const char x[1] = {};
  StagePlan plan;
  for (int i = 0; i < kMaxRun + 1; ++i) plan.add(x, 4, 8, 8);
  ASSERT_EQ(plan.num_groups, 2);
  EXPECT_EQ(plan.groups[0].run, kMaxRun);
  EXPECT_EQ(plan.groups[1].run, 1);
  EXPECT_EQ(plan.groups[1].smem_offset, kMaxRun * 32);

  StagePlan shapes;
  for (int i = 0; i < kMaxGroups; ++i) shapes.add(x, 4, 8 << i, 4);  // each row stride its own shape
  EXPECT_THROW(shapes.add(x, 4, 1024, 4), std::logic_error);
  StagePlan segments;
  for (int i = 0; i < kMaxSegments; ++i) segments.add(x, 4, 8, 4);
  EXPECT_THROW(segments.add(x, 4, 8, 4), std::logic_error);
}

// Every form and dtype: each vector's keys start at a 16-byte boundary of their group (the lanes' float4
// and uint4 reads, the conversion's stores), a group is a whole number of 16-byte units, and the first keys
// of eight neighbouring groups (a warp's at K / KPT = 8; ColumnLane puts at most four in a quarter warp) lie
// in eight distinct 4-bank quads.
template <class Form, class T>
void expect_record_reads_align(const char* name) {
  using R = ColumnRecord<Form, T>;
  for (int KPT : {4, 8, 16}) {
    SCOPED_TRACE(testing::Message() << name << " KPT=" << KPT << " dtype bytes=" << sizeof(T));
    const int group = R::group_floats(KPT);
    EXPECT_EQ(group % 4, 0);
    EXPECT_GE(group, R::vector_offset(KeyVectors<Form>::count, KPT));
    for (int vec = 0; vec < KeyVectors<Form>::count; ++vec) {
      EXPECT_EQ(R::vector_offset(vec, KPT) % 4, 0);
      EXPECT_EQ(R::vector_floats(vec, KPT) % 4, 0) << "vector " << vec;
    }
    std::set<int> quads;
    for (int g = 0; g < 8; ++g) quads.insert(g * group / 4 % 8);
    EXPECT_EQ(quads.size(), 8u);
    // packed only where bf16 raw keys make whole 16-byte reads; decays always fp32
    const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    EXPECT_EQ(R::packed(KPT), bf16 && KPT >= 8);
    if (KeyVectors<Form>::per_key_gate) {
      EXPECT_EQ(R::vector_floats(KeyVectors<Form>::g, KPT), KPT);
    }
  }
  Geometry g;
  g.K = 128, g.KPT = 16, g.BV = 4, g.W = 8;
  EXPECT_EQ(R::slice_offset(g) % 4, 0);
  EXPECT_EQ(R::floats(g) % 4, 0);
}

TEST(ColumnRecord, EveryVectorReadIsAlignedAndKeyGroupsSpreadOverTheBanks) {
  expect_record_reads_align<GlaForm, float>("gla");
  expect_record_reads_align<GlaForm, __half>("gla");
  expect_record_reads_align<GlaForm, __nv_bfloat16>("gla");
  expect_record_reads_align<SimpleGlaForm, __nv_bfloat16>("simple_gla");
  expect_record_reads_align<SimpleGlaForm, float>("simple_gla");
  expect_record_reads_align<Rwkv6Form, __nv_bfloat16>("rwkv6");
  expect_record_reads_align<Rwkv7Form, __nv_bfloat16>("rwkv7");
  expect_record_reads_align<Rwkv7Form, __half>("rwkv7");
  expect_record_reads_align<gsa::gla_passes::KeysForm, __nv_bfloat16>("gsa pass 1");
  expect_record_reads_align<gsa::gla_passes::KeysForm, float>("gsa pass 1");
}

// A per-value gate (gsa's pass 1) keeps its exponentiated slice right after the value slice, each padded to
// whole 16-byte units; the other forms keep none (the bonus, or the record's end, follows the value slice).
TEST(ColumnRecord, APerValueGateSliceFollowsTheValueSlice) {
  Geometry g;
  g.K = 64, g.KPT = 8, g.BV = 2, g.W = 3;  // 6 columns: padded to 8 floats
  using Keys = ColumnRecord<gsa::gla_passes::KeysForm, __nv_bfloat16>;
  EXPECT_EQ(Keys::gate_offset(g, 8), Keys::slice_offset(g, 8) + 8);
  EXPECT_EQ(Keys::floats(g, 8), Keys::gate_offset(g, 8) + 8);
  EXPECT_EQ(Keys::gate_offset(g, 8) % 4, 0);
  EXPECT_EQ(KeyVectors<gsa::gla_passes::KeysForm>::count, 2);  // q and k: no gate among the key vectors
  using Gla = ColumnRecord<GlaForm, __nv_bfloat16>;
  EXPECT_EQ(Gla::floats(g, 8), Gla::gate_offset(g, 8));
  using Rwkv6 = ColumnRecord<Rwkv6Form, __nv_bfloat16>;
  EXPECT_EQ(Rwkv6::bonus_offset(g, 8), Rwkv6::gate_offset(g, 8));
}

TEST(ColumnRecord, PackedKeysHalveTheRecordsOfBf16Inputs) {
  // gla at K = 64, 8 keys per lane: q and k as bf16 (4 floats each), the decays fp32 (8), padded to 20
  EXPECT_EQ((ColumnRecord<GlaForm, __nv_bfloat16>::group_floats(8)), 20);
  EXPECT_EQ((ColumnRecord<GlaForm, float>::group_floats(8)), 28);
  EXPECT_EQ((ColumnRecord<GlaForm, __nv_bfloat16>::vector_offset(2, 8)), 8);
}

// The converter warps' second buffer of records (column_feed.cuh) fits the 227 KiB a Hopper block may take
// at the D = 128 peer shapes in bf16 with wide (32-token) chunks, two value columns a lane
// (4,4096,16,128) or one (2,16384,16,128), for gla, rwkv6 and simple_gla; rwkv7's five key vectors do not,
// which is why variant.cuh builds no converter kernels for the low-rank form.
// A 16-bit column pass at K = V = 128, 16 keys and CPL columns a lane, 8 warps, wide (32-token) chunks for
// bf16 as the Hoppers take them where each block has an SM, 16-token ones for fp16 (column_chunk_tokens,
// wide_chunks_at_16_keys): its geometry and stage plan.
template <class Form, class T = __nv_bfloat16>
std::pair<Geometry, StagePlan> pass_at_128(int CPL) {
  Geometry g;
  g.K = g.V = 128, g.KPT = 16, g.KG = 8, g.CPL = CPL, g.W = 8, g.BV = 4 * CPL;
  g.column_tokens = kChunk;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) g = with_wide_column_chunks(g);
  static const char x[1] = {};
  StagePlan plan;
  for (int vec = 0; vec < KeyVectors<Form>::count; ++vec) plan.add(x, 2, g.K, g.K);
  plan.add(x, 2, g.V, g.block_columns(), g.block_columns());
  plan.tokens = g.column_tokens;
  return {g, plan};
}

template <class Form>
std::size_t converter_pass_bytes(int CPL) {
  const auto [g, plan] = pass_at_128<Form>(CPL);
  using R = ColumnRecord<Form, __nv_bfloat16>;
  const std::size_t with = column_shared_bytes<Form, __nv_bfloat16>(plan, g, true);
  const std::size_t without = column_shared_bytes<Form, __nv_bfloat16>(plan, g, false);
  EXPECT_EQ(with - without, sizeof(float) * g.column_tokens * R::floats(g));  // one more buffer of records
  return with;
}

TEST(ColumnSharedMemory, ConvertersFitAtTheD128PeerShapesExceptForRwkv7) {
  constexpr std::size_t kHopper = 227 * 1024;
  for (int CPL : {1, 2}) {
    SCOPED_TRACE(testing::Message() << "CPL=" << CPL);
    EXPECT_LE(converter_pass_bytes<GlaForm>(CPL), kHopper);
    EXPECT_LE(converter_pass_bytes<Rwkv6Form>(CPL), kHopper);
    EXPECT_LE(converter_pass_bytes<SimpleGlaForm>(CPL), kHopper);
    EXPECT_GT(converter_pass_bytes<Rwkv7Form>(CPL), kHopper);
  }
  // rwkv6 with two columns a lane: ring 2 x 32 x 896 bytes, records 2 x 32 x 356 floats, partials 32 x 512
  EXPECT_EQ(converter_pass_bytes<Rwkv6Form>(2), 57344u + 91136u + 65536u);
}

// rwkv7's checkpoint room (checkpoint_room.cuh): a buffer's rows start 16-byte aligned (the block's float4
// copies out), never overlap (version 83's first try wrapped its bank shift after eight key groups, so K =
// 256's ninth group overlapped the eighth's last row and the battery's K = 256 gradients failed) and end
// within checkpoint_buffer_floats; at K = 128 a warp's lanes writing one key of their columns land on
// distinct banks at one column a lane, on two words a bank at two (float2 stores: 256 bytes, two wavefronts).
TEST(CheckpointRoom, RowsAreAlignedApartAndSpreadOverTheBanks) {
  for (int K : {128, 256})
    for (int CPL : {1, 2})
      for (int W : {4, 8}) {
        SCOPED_TRACE(testing::Message() << "K=" << K << " CPL=" << CPL << " W=" << W);
        Geometry g;
        g.K = K, g.KPT = 16, g.KG = K / 16, g.CPL = CPL, g.W = W, g.BV = 32 / g.KG * CPL;
        const int columns = g.block_columns();
        std::vector<std::pair<int, int>> rows;
        for (int row = 0; row < K; ++row) {
          const int start = row * columns + checkpoint_row_shift(row, g.KPT, CPL);
          EXPECT_EQ(start % 4, 0);
          rows.push_back({start, start + columns});
        }
        std::sort(rows.begin(), rows.end());
        for (std::size_t r = 1; r < rows.size(); ++r) EXPECT_LE(rows[r - 1].second, rows[r].first) << r;
        EXPECT_LE(rows.back().second, checkpoint_buffer_floats(g));
        if (K != 128) continue;
        const int slots = 32 / g.KG;
        for (int warp : {0, W - 1})
          for (int key : {0, 7, 15}) {
            std::map<int, int> words;  // bank -> 4-byte words the warp's store writes there
            for (int lane = 0; lane < 32; ++lane) {
              const int group = lane / slots, column = warp * g.BV + lane % slots * CPL,
                        row = group * 16 + key;
              for (int m = 0; m < CPL; ++m)
                ++words[(row * columns + checkpoint_row_shift(row, g.KPT, CPL) + column + m) % 32];
            }
            int most = 0;
            for (const auto& [bank, count] : words) most = std::max(most, count);
            EXPECT_EQ(most, CPL) << "warp " << warp << " key " << key;
          }
      }
}

// launch_forward's rule for the room (checkpoint_room_pays) on the Hopper's 227 KiB a block: it takes rwkv7's
// bf16 forward at K = V = 128 with one column a lane (2,16384,16,128's layout, 32-token chunks) and its fp16
// one with two (4,4096,16,128's, 16-token chunks: fp16's records are not packed, but its chunks are half as
// long), before the chunked backward (a checkpoint every 32 tokens); not bf16's two columns a lane
// (4,4096,16,128's: the room does not fit, the checkpoints keep their bursts), and none of what it was not
// timed for: fp32 inputs, the scans' backward (a checkpoint every 16 tokens), converter warps, other forms.
template <class Form, class T>
bool room_pays_at_128(int CPL, int checkpoint_every = 2, int input_bytes = sizeof(T),
                      bool converters = false) {
  auto [g, plan] = pass_at_128<Form, T>(CPL);
  g.checkpoint_every = checkpoint_every;
  const std::size_t pass = column_shared_bytes<Form, T>(plan, g, false);
  return checkpoint_room_pays<Form>(g, input_bytes, converters, pass, 227 * 1024);
}

TEST(CheckpointRoom, TakesRwkv7sSixteenBitForwardsWhereTheyFit) {
  EXPECT_TRUE((room_pays_at_128<Rwkv7Form, __nv_bfloat16>(1)));
  EXPECT_FALSE((room_pays_at_128<Rwkv7Form, __nv_bfloat16>(2)));
  EXPECT_TRUE((room_pays_at_128<Rwkv7Form, __half>(2)));
  EXPECT_FALSE((room_pays_at_128<Rwkv7Form, __nv_bfloat16>(1, /*checkpoint_every=*/1)));
  EXPECT_FALSE((room_pays_at_128<Rwkv7Form, __nv_bfloat16>(1, 2, /*input_bytes=*/4)));
  EXPECT_FALSE((room_pays_at_128<Rwkv7Form, __nv_bfloat16>(1, 2, 2, /*converters=*/true)));
  EXPECT_FALSE((room_pays_at_128<GlaForm, __nv_bfloat16>(1)));
}

}  // namespace
}  // namespace flabench::fused
