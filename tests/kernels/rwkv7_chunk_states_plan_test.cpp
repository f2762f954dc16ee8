// rwkv7 chunk's state pass as the host plans it (kernels/rwkv7/chunk_states_plan.h): the value columns a
// block holds at the peer shapes are the ones measured fastest on an H200 (kernels/notes/rwkv7_chunk.md,
// v13), the CUDA-core kernel (fp16, fp32) is never given the tensor cores' wide blocks, every pick divides V,
// and the shared memory of what is picked fits the device (the backward's tensor-core reverse scan's too).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "kernels/rwkv7/chunk_states_plan.h"

namespace flabench::rwkv7 {
namespace {

constexpr int kSms = 132;
constexpr std::size_t kHopperShared = 227 * 1024, kAdaShared = 99 * 1024;

int columns(std::int64_t B, std::int64_t H, int D, int C = 32, bool tensor_cores = true,
            std::size_t shared = kHopperShared, int sms = kSms) {
  return state_columns(B * H, D, D, C, tensor_cores, sms, shared);
}

TEST(Rwkv7ChunkStatesPlan, PeerShapesTakeTheColumnsMeasuredFastest) {
  for (int C : {16, 32, 64}) {
    EXPECT_EQ(columns(8, 8, 64, C), 16) << "8,1024,8,64 C" << C;
    EXPECT_EQ(columns(4, 16, 64, C), 16) << "4,4096,16,64 C" << C;
    EXPECT_EQ(columns(1, 16, 64, C), 8) << "1,24576,16,64 C" << C;  // 64 blocks of 16 for 132 SMs
    EXPECT_EQ(columns(2, 16, 128, C), 32) << "2,16384,16,128 C" << C;
    EXPECT_EQ(columns(4, 16, 128, C), 32) << "4,4096,16,128 C" << C;
  }
}

TEST(Rwkv7ChunkStatesPlan, CudaCoresNeverTakeTheWideBlocks) {
  for (std::int64_t heads : {1, 64, 4096})
    EXPECT_NE(state_columns(heads, 128, 128, 32, false, kSms, kHopperShared), kWideStateColumns);
}

// The shared memory of a block at `cols` columns, one operand buffer: the tensor-core kernel's planes for
// bf16, the CUDA-core kernel's fp32 rows (fp16 inputs) otherwise.
std::size_t state_bytes(int C, int K, int cols, bool tensor_cores) {
  return tensor_cores ? std::size_t(mma_states_shared_bytes(C, K, cols, 1))
                      : sizeof(float) * std::size_t(states_shared_floats(C, K, 2, cols, 1));
}

TEST(Rwkv7ChunkStatesPlan, PicksDivideVAndFitTheDevice) {
  for (std::size_t shared : {kHopperShared, kAdaShared})
    for (int C : {16, 32, 64})
      for (int K : {16, 32, 64, 128})
        for (int V : {16, 32, 64, 128})
          for (std::int64_t heads : {1, 8, 64, 1024})
            for (bool tensor_cores : {true, false}) {
              const int cols = state_columns(heads, K, V, C, tensor_cores, kSms, shared);
              EXPECT_EQ(V % cols, 0) << "V " << V << " cols " << cols;
              // what the variant's limits promise (16 columns) fits: a wider pick must fit too
              if (state_bytes(C, K, kStateColumns, tensor_cores) <= shared) {
                EXPECT_LE(state_bytes(C, K, cols, tensor_cores), shared)
                    << "C" << C << " K" << K << " V" << V << " cols " << cols;
              }
            }
  // an RTX 40xx holds the wide blocks at C = 32 (67 KiB), not at C = 64 (16 columns there)
  EXPECT_EQ(columns(4, 16, 128, 32, true, kAdaShared), kWideStateColumns);
  EXPECT_EQ(columns(4, 16, 128, 64, true, kAdaShared), kStateColumns);
}

// The backward's reverse scan on the tensor cores (bf16) takes the forward's columns; its block fits a Hopper
// wherever the rule can pick it, with two operand buffers at the D = 128 peer shapes (32 columns). On an RTX
// 40xx's 99 KiB it fits at C = 32, K = 128 with one buffer and not at C = 64, where the chunk variant keeps
// the CUDA-core scan (chunk.cu).
TEST(Rwkv7ChunkStatesPlan, TheTensorCoreReverseScanFitsWhereItRuns) {
  for (int C : {16, 32, 64})
    for (int K : {16, 32, 64, 128})
      for (std::int64_t heads : {1, 8, 64, 1024}) {
        const int cols = state_columns(heads, K, K, C, true, kSms, kHopperShared);
        EXPECT_LE(std::size_t(mma_dstate_shared_bytes(C, K, cols, 1)), kHopperShared)
            << "C" << C << " K" << K << " heads " << heads;
      }
  for (int C : {16, 32})
    EXPECT_EQ(mma_dstate_buffers(C, 128, kWideStateColumns, kHopperShared), 2) << "C" << C;
  EXPECT_LE(std::size_t(mma_dstate_shared_bytes(32, 128, kStateColumns, 1)), kAdaShared);
  EXPECT_EQ(mma_dstate_buffers(32, 128, kStateColumns, kAdaShared), 1);
  EXPECT_GT(std::size_t(mma_dstate_shared_bytes(64, 128, kStateColumns, 1)), kAdaShared);
}

TEST(Rwkv7ChunkStatesPlan, OneOperandBufferOnlyWhereItSavesAWave) {
  // 4,4096,16,128: 256 blocks of 32 columns; on an H200 two an SM with one buffer, one with two
  EXPECT_EQ(state_buffers(256, kSms, 2, 1), 1);
  // 2,16384,16,128: 128 blocks, one wave either way
  EXPECT_EQ(state_buffers(128, kSms, 2, 1), 2);
  // the D = 64 peer shapes: 256 blocks of 16 columns, four an SM with one buffer, three with two
  EXPECT_EQ(state_buffers(256, kSms, 4, 3), 2);
  EXPECT_EQ(state_buffers(1000, kSms, 2, 2), 2);  // no more blocks an SM with one: keep the prefetch
  EXPECT_EQ(state_buffers(1000, kSms, 2, 0), 1);  // two do not fit
  // the backward's reverse scan by the same rule (v49): at 4,4096,16,128 its blocks fit two an SM with one
  // buffer and one with two (shared memory; 128 registers a thread allow two), so it takes one
  constexpr std::size_t kHopperSm = 228 * 1024, kReservedPerBlock = 1024;
  const auto per_sm = [&](int buffers) {
    const int cols = columns(4, 16, 128);
    return int(kHopperSm /
               (std::size_t(mma_dstate_shared_bytes(32, 128, cols, buffers)) + kReservedPerBlock));
  };
  EXPECT_EQ(per_sm(1), 2);
  EXPECT_EQ(per_sm(2), 1);
  EXPECT_EQ(mma_dstate_buffers(32, 128, columns(4, 16, 128), kHopperShared), 2);
  EXPECT_EQ(state_buffers(std::int64_t(4 * 16) * (128 / columns(4, 16, 128)), kSms, per_sm(1), per_sm(2)), 1);
}

// Copy warps (chunk_states_feed.cuh) wherever K <= 64, and at K = 128 only where the pass's grid has an SM a
// block (v44, v46): 2,16384,16,128's 128 blocks of 32 columns take them, 4,4096,16,128's 256 keep two blocks
// an SM without them; a block with copy warps has twice the scan's threads.
TEST(Rwkv7ChunkStatesPlan, CopyWarpsWhereTheScanHasRoomForThem) {
  for (int KQ : {1, 2, 4})
    for (std::int64_t blocks : {8, 128, 256, 4096}) EXPECT_TRUE(mma_state_copy_warps(KQ, blocks, kSms));
  EXPECT_TRUE(mma_state_copy_warps(8, 128, kSms));
  EXPECT_TRUE(mma_state_copy_warps(8, kSms, kSms));
  EXPECT_FALSE(mma_state_copy_warps(8, kSms + 1, kSms));
  EXPECT_FALSE(mma_state_copy_warps(8, 256, kSms));
  EXPECT_EQ(mma_state_threads(4, true), 256);
  EXPECT_EQ(mma_state_threads(8, false), 256);
  EXPECT_EQ(mma_state_threads(8, true), 512);
}

// A pieces rule's count at B, T, H, D in chunks of 32.
template <class Rule>
int pieces_at(const Rule& rule, std::int64_t B, std::int64_t H, int D, int T) {
  return rule(B * H, D, (T + 31) / 32, kSms);
}

// A pieces rule (forward_pieces, backward_pieces) over chunk and head counts: at least one piece, at most
// eight, 64 chunks or more a piece, and more than one only where `more_allowed` says for those heads.
template <class Rule, class Allowed>
void expect_whole_pieces(const Rule& rule, const Allowed& more_allowed) {
  for (int chunks : {1, 63, 64, 127, 128, 500, 4096})
    for (std::int64_t heads : {1, 16, 64, 1024}) {
      const int n = rule(heads, 64, chunks, kSms);
      EXPECT_GE(n, 1);
      EXPECT_LE(n, 8);
      EXPECT_TRUE(n == 1 || (more_allowed(heads) && chunks / n >= 64)) << chunks << " chunks in " << n;
    }
}

// The forward's and the chunked backward's pieces (C32) at the peer shapes and a few-heads sequence, the
// counts measured fastest on an H200: the forward eight at few heads, two at the other long shapes, one at
// 8,1024,8,64 (v38); the backward eight at few heads (1,24576,16,64: 0.95x of one piece in bf16) and one
// wherever the scan's blocks fill the SMs (4,4096,16,64 1.02-1.03x and 8,1024,8,64 1.06-1.10x slower at
// four: v70); both at most one piece per 64 chunks.
TEST(Rwkv7ChunkStatesPlan, PiecesAtThePeerShapes) {
  struct Shape {
    std::int64_t B, H;
    int D, T, forward, backward;
  };
  for (const Shape& s :
       {Shape{1, 16, 64, 24576, 8, 8}, Shape{1, 16, 64, 8192, 4, 4}, Shape{1, 16, 64, 4096, 2, 2},
        Shape{1, 16, 64, 2048, 1, 1}, Shape{4, 16, 64, 4096, 2, 1}, Shape{2, 16, 128, 16384, 2, 1},
        Shape{4, 16, 128, 4096, 2, 1}, Shape{8, 8, 64, 1024, 1, 1}}) {
    EXPECT_EQ(pieces_at(forward_pieces, s.B, s.H, s.D, s.T), s.forward) << s.B << "," << s.T << "," << s.H;
    EXPECT_EQ(pieces_at(backward_pieces, s.B, s.H, s.D, s.T), s.backward) << s.B << "," << s.T << "," << s.H;
  }
  expect_whole_pieces(forward_pieces, [](std::int64_t) { return true; });
  expect_whole_pieces(backward_pieces, [](std::int64_t heads) { return few_heads(heads, 64, kSms); });
}

// A scan in pieces (the forward's state pass v71, the reverse scan v70b): 16 columns on the tensor cores in
// four pieces or more at few heads where a block of 16 fits (1,24576,16,64: 64 blocks, not 128 of 8); the
// narrow 8 there on the CUDA cores, in fewer pieces or where 16 do not fit; the many-heads rule elsewhere.
constexpr std::size_t kRoom = 227 * 1024, kFits = 100 * 1024;  // a Hopper's block; a block of 16 within it
TEST(Rwkv7ChunkStatesPlan, APiecedTensorCoreScanTakesSixteenColumnsAtFewHeads) {
  const auto columns = [&](std::int64_t heads, int D, bool tensor_cores, int pieces,
                           std::size_t wide = kFits) {
    return pieced_scan_columns(heads, D, D, 32, tensor_cores, kSms, kRoom, pieces, wide);
  };
  // the peer shape at few heads, in the pieces either pass takes there
  EXPECT_EQ(columns(16, 64, true, forward_pieces(16, 64, 24576 / 32, kSms)), kStateColumns);
  EXPECT_EQ(columns(16, 64, true, backward_pieces(16, 64, 24576 / 32, kSms)), kStateColumns);
  EXPECT_EQ(columns(16, 64, true, 4), kStateColumns);
  EXPECT_EQ(columns(16, 64, false, 8), kNarrowStateColumns);
  EXPECT_EQ(columns(16, 64, true, 2), kNarrowStateColumns);  // two pieces: not measured with 16
  EXPECT_EQ(columns(16, 64, true, 1), kNarrowStateColumns);  // one piece: the chain is on the path
  EXPECT_EQ(columns(16, 64, true, 8, kRoom + 1), kNarrowStateColumns);
  // many heads: the forward's two pieces, or more were they asked, leave state_columns' rule
  for (std::int64_t heads : {64, 128})  // (32 heads of 64 columns are few: 128 blocks of 16 on 132 SMs)
    for (int D : {64, 128})
      for (int pieces : {1, 2, 8})
        EXPECT_EQ(columns(heads, D, true, pieces), state_columns(heads, D, D, 32, true, kSms, kRoom));
  // the passes' blocks of 16 fit a Hopper at every chunk size and head dim the variant takes
  for (int K : {16, 32, 64, 128})
    for (int C : {16, 32, 64}) {
      EXPECT_LE(mma_dstate_shared_bytes(C, K, kStateColumns, 1), int(kRoom)) << "K=" << K << " C=" << C;
      EXPECT_LE(mma_states_shared_bytes(C, K, kStateColumns, 1), int(kRoom)) << "K=" << K << " C=" << C;
    }
}

}  // namespace
}  // namespace flabench::rwkv7
