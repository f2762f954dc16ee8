// Every CUDA variant answers "can you run this?" for every head-dim pair, dtype and mode without a GPU, and
// the answers match what each variant promises (kernels/notes/*.md): naive runs up to 128 x 128 everywhere
// (gsa's two states up to K, V, M = 128 on a Hopper, 64 on an RTX 40xx), and fused_recurrent runs K, V in
// {16 .. 256} on a Hopper's shared memory (rwkv7's fp32 backward up to 128) and K, V <= 64 on an RTX 40xx's,
// in every dtype; chunk as below.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "kernels/gsa/gsa.h"
#include "kernels/registry.h"

namespace flabench {
namespace {

constexpr DeviceLimits kHopper{227 * 1024, 90};
constexpr DeviceLimits kAda{99 * 1024, 89};  // RTX 4070 Ti: 99 KiB of shared memory per block

TEST(VariantSupport, EveryCudaVariantAnswersForEveryShape) {
  for (const OpSpec* op : product_registry().ops())
    for (const Variant* variant : product_registry().variants_of(op->name)) {
      if (variant->backend != Backend::cuda) continue;
      for (int K : {8, 16, 32, 48, 64, 100, 128, 256, 512})
        for (int V : {8, 16, 32, 48, 64, 100, 128, 256, 512})
          for (DType dtype : kAllDTypes)
            for (Mode mode : {Mode::fwd, Mode::fwdbwd})
              for (const DeviceLimits& limits : {kHopper, kAda}) {
                const Problem p{2, 100, 3, K, V, dtype};
                const auto reason = why_unsupported(*variant, p, mode, limits);
                if (reason) {
                  EXPECT_FALSE(reason->empty()) << op->name << "/" << variant->name;
                }
              }
    }
}

// M slots and G query heads per key/value head matter to gsa only.
bool runs(const std::string& op, const std::string& variant, int K, int V, Mode mode,
          const DeviceLimits& limits, int M = 0, int G = 1, DType dtype = DType::bf16) {
  Problem p{1, 64, 1, K, V, dtype};
  p.M = M, p.G = G;
  return !why_unsupported(*product_registry().find_variant(op, variant), p, mode, limits);
}

TEST(VariantSupport, FusedRecurrentCoversThePowersOfTwoFrom16To256) {
  for (const std::string op : {"rwkv6", "rwkv7", "gla", "simple_gla"})
    for (int K : {16, 32, 64, 128, 256})
      for (int V : {16, 32, 64, 128, 256})
        for (DType dtype : kAllDTypes) {
          SCOPED_TRACE(testing::Message() << op << " " << K << "x" << V << " " << dtype_name(dtype));
          // rwkv7's fp32 backward at K or V = 256 needs more than a Hopper's 227 KiB of shared memory:
          // refused
          const bool beyond_hopper = op == "rwkv7" && dtype == DType::fp32 && (K == 256 || V == 256);
          EXPECT_EQ(runs(op, "fused_recurrent", K, V, Mode::fwdbwd, kHopper, 0, 1, dtype), !beyond_hopper);
          if (K <= 64 && V <= 64) {
            EXPECT_TRUE(runs(op, "fused_recurrent", K, V, Mode::fwdbwd, kAda, 0, 1, dtype));
          }
          // On an RTX 40xx's 99 KiB up to 128 too, but rwkv7's five key vectors: its 16-bit forward at
          // K = 128 with one column a lane where two do not fit and blocks of 4 warps where 8 do not
          // (geometry_within), its fwd+bwd's row pass at V = 128 not, nor its fp32 column pass at K = 128
          // (the ring unpacked)
          if (K <= 128 && V <= 128 && op != "rwkv7") {
            EXPECT_TRUE(runs(op, "fused_recurrent", K, V, Mode::fwdbwd, kAda, 0, 1, dtype));
          }
        }
  EXPECT_TRUE(runs("rwkv7", "fused_recurrent", 128, 128, Mode::fwd, kAda));
  EXPECT_TRUE(runs("rwkv7", "fused_recurrent", 128, 64, Mode::fwdbwd, kAda));
  EXPECT_FALSE(runs("rwkv7", "fused_recurrent", 128, 128, Mode::fwdbwd, kAda)) << "the row pass: 111 KiB";
  EXPECT_TRUE(runs("rwkv7", "fused_recurrent", 128, 128, Mode::fwd, kAda, 0, 1, DType::fp16))
      << "in blocks of 4 warps";
  EXPECT_FALSE(runs("rwkv7", "fused_recurrent", 128, 128, Mode::fwd, kAda, 0, 1, DType::fp32)) << "144 KiB";
  EXPECT_FALSE(runs("gla", "fused_recurrent", 48, 64, Mode::fwd, kHopper));
  EXPECT_FALSE(runs("gla", "fused_recurrent", 64, 100, Mode::fwd, kHopper));
}

TEST(VariantSupport, NaiveKeepsTheStateInSharedMemory) {
  EXPECT_TRUE(runs("rwkv7", "naive", 128, 128, Mode::fwdbwd, kHopper));
  EXPECT_TRUE(runs("rwkv7", "naive", 100, 60, Mode::fwdbwd, kAda));
  EXPECT_FALSE(runs("rwkv7", "naive", 256, 256, Mode::fwd, kHopper));
}

// chunk (kernels/notes/chunk.md): chunk sizes 16, 32 and 64; K a multiple of 16 and V of 8; on a Hopper
// K = V = 128 (both ways round with 64 and 16) and 256 at every chunk size; on an RTX 40xx D = 64 and 128 at
// every chunk size with 16-bit inputs (fp32 rows take more: D = 64 at C <= 32, D = 128 at C = 16 and 64),
// D = 256 at none.
TEST(VariantSupport, ChunkRunsItsChunkSizesAndHeadDims) {
  const auto chunk_runs = [](const std::string& op, int C, int K, int V, const DeviceLimits& limits,
                             DType dtype = DType::bf16) {
    const Problem p{1, 64, 1, K, V, dtype, C};
    return !why_unsupported(*product_registry().find_variant(op, "chunk"), p, Mode::fwdbwd, limits);
  };
  for (const std::string op : {"gla", "rwkv6", "simple_gla"})
    for (int C : {16, 32, 64}) {
      for (const auto& [K, V] : {std::pair{64, 64}, {128, 128}, {64, 16}, {16, 64}, {128, 64}, {32, 48}})
        EXPECT_TRUE(chunk_runs(op, C, K, V, kHopper)) << op << " C" << C << " " << K << "x" << V;
      EXPECT_TRUE(chunk_runs(op, C, 256, 256, kHopper)) << op << " C" << C;
      for (DType dtype : kAllDTypes) {
        EXPECT_EQ(chunk_runs(op, C, 64, 64, kAda, dtype), dtype != DType::fp32 || C <= 32) << op << " C" << C;
        EXPECT_EQ(chunk_runs(op, C, 128, 128, kAda, dtype), dtype != DType::fp32 || C != 32)
            << op << " C" << C;
      }
      EXPECT_FALSE(chunk_runs(op, C, 256, 256, kAda)) << op << " C" << C;
    }
  EXPECT_FALSE(chunk_runs("gla", 48, 64, 64, kHopper));
  EXPECT_FALSE(chunk_runs("gla", 64, 24, 64, kHopper));
  EXPECT_FALSE(chunk_runs("gla", 64, 64, 12, kHopper));
}

// The output pass and the value gradients stage 32 key channels at a time at C = 64 and K >= 128
// (kernels/notes/chunk.md, versions 37 and 39), so forward and backward take K = V = 256 at C = 64 on a
// Hopper and K = V = 128 at C = 64 on an RTX 40xx; before the tiles the whole-K blocks needed 212 KiB
// (output) and 171 KiB (value gradients) at K = V = 128.
TEST(VariantSupport, ChunkStagesKeyTilesAtSixtyFourTokens) {
  const auto chunk_runs = [](const std::string& op, int C, int K, Mode mode, const DeviceLimits& limits) {
    const Problem p{1, 64, 1, K, K, DType::bf16, C};
    return !why_unsupported(*product_registry().find_variant(op, "chunk"), p, mode, limits);
  };
  for (const std::string op : {"gla", "rwkv6"}) {
    for (Mode mode : {Mode::fwd, Mode::fwdbwd}) {
      EXPECT_TRUE(chunk_runs(op, 64, 256, mode, kHopper)) << op;
      EXPECT_TRUE(chunk_runs(op, 64, 128, mode, kAda)) << op;
    }
    EXPECT_FALSE(chunk_runs(op, 64, 256, Mode::fwd, kAda)) << op << ": the prepare kernel stages all K";
  }
}

// The chunk kernels index a token's row of every head and the scan's grid in 32 bits (launch.cuh,
// index_limits): past 2^31 - 1 either is refused with the reason, not indexed wrongly.
TEST(VariantSupport, ChunkRefusesIndicesPastAnInt) {
  const auto reason = [](const std::string& op, std::int64_t H, int K, int V, int M = 0, int G = 1,
                         std::int64_t B = 1) {
    Problem p{B, 64, H, K, V, DType::bf16, 64};
    p.M = M, p.G = G;
    return why_unsupported(*product_registry().find_variant(op, "chunk"), p, Mode::fwdbwd, kHopper);
  };
  for (const std::string op : {"gla", "rwkv6", "simple_gla"}) {
    EXPECT_FALSE(reason(op, std::int64_t(1) << 23, 128, 128)) << op << ": 2^30 elements a row";
    const auto past = reason(op, std::int64_t(1) << 23, 128, 256);
    ASSERT_TRUE(past) << op << ": 2^31 elements a row";
    EXPECT_NE(past->find("32 bits"), std::string::npos) << *past;
  }
  EXPECT_FALSE(reason("gsa", std::int64_t(1) << 21, 64, 64, 64, 4)) << "2^29 elements a row";
  const auto past = reason("gsa", std::int64_t(1) << 23, 64, 64, 64, 4);  // 2^25 query heads of 64
  ASSERT_TRUE(past);
  EXPECT_NE(past->find("32 bits"), std::string::npos) << *past;
  // the scan's grid: 2^21 x 16 heads x 64 tiles of K = V = 256 is 2^31 blocks; half the batch fits
  EXPECT_FALSE(reason("gla", 16, 256, 256, 0, 1, std::int64_t(1) << 20)) << "2^30 scan blocks";
  const auto grid = reason("gla", 16, 256, 256, 0, 1, std::int64_t(1) << 21);
  ASSERT_TRUE(grid);
  EXPECT_NE(grid->find("scan"), std::string::npos) << *grid;
  EXPECT_TRUE(reason("gsa", 16, 64, 64, 64, 4, std::int64_t(1) << 23)) << "gsa: 2^33 scan blocks";
}

// rwkv7's chunk (kernels/notes/rwkv7_chunk.md): chunk sizes 16, 32 and 64, K and V in {16, 32, 64, 128}
// either way round; on an RTX 40xx D = 64 at every chunk size, the forward at K = V = 128 at C <= 32 (at
// C = 64 one chunk's state-pass operands take 117 KiB in bf16) and its backward (fused_recurrent's) not
// at K = V = 128.
TEST(VariantSupport, Rwkv7ChunkRunsItsChunkSizesAndHeadDims) {
  const auto chunk_runs = [](int C, int K, int V, const DeviceLimits& limits, DType dtype = DType::bf16,
                             Mode mode = Mode::fwdbwd) {
    const Problem p{1, 64, 1, K, V, dtype, C};
    return !why_unsupported(*product_registry().find_variant("rwkv7", "chunk"), p, mode, limits);
  };
  for (int C : {16, 32, 64}) {
    for (const auto& [K, V] : {std::pair{64, 64}, {128, 128}, {16, 64}, {64, 16}, {32, 128}})
      for (DType dtype : {DType::fp32, DType::bf16})
        EXPECT_TRUE(chunk_runs(C, K, V, kHopper, dtype)) << "C" << C << " " << K << "x" << V;
    EXPECT_TRUE(chunk_runs(C, 64, 64, kAda)) << "C" << C;
    EXPECT_EQ(chunk_runs(C, 128, 128, kAda, DType::bf16, Mode::fwd), C <= 32) << "C" << C;
  }
  EXPECT_FALSE(chunk_runs(32, 128, 128, kAda));
  EXPECT_FALSE(chunk_runs(48, 64, 64, kHopper)) << "a chunk size between the kernels' three";
  EXPECT_FALSE(chunk_runs(64, 256, 256, kHopper));
  EXPECT_FALSE(chunk_runs(64, 48, 64, kHopper));
  // a grid row per (batch, head): CUDA's 65535 rows, then the reason instead of a failed launch
  const auto heads_run = [](std::int64_t B, std::int64_t H) {
    const Problem p{B, 16, H, 64, 64, DType::bf16, 32};
    return !why_unsupported(*product_registry().find_variant("rwkv7", "chunk"), p, Mode::fwd, kHopper);
  };
  EXPECT_TRUE(heads_run(65535, 1));
  EXPECT_FALSE(heads_run(4096, 16));
}

// gsa's chunk: K and M multiples of 16 (M up to 128), V of 8; its logit kernels stage the rows of q and k (do
// and v) as the inputs are, so with 16-bit inputs on a Hopper K = V = M = 128 (and K = 256) run at every
// chunk size, fp32 K = V = M = 128 forward only at C = 64; on an RTX 40xx D = M = 64 forward at every chunk
// size and fwd+bwd at C <= 32 (GLA's backward); grouped queries both ways.
TEST(VariantSupport, GsaChunkTakesItsShapes) {
  const auto chunk_runs = [](int C, int K, int V, int M, Mode mode, const DeviceLimits& limits, int G = 4,
                             DType dtype = DType::bf16) {
    Problem p{1, 64, 1, K, V, dtype, C};
    p.M = M, p.G = G;
    return !why_unsupported(*product_registry().find_variant("gsa", "chunk"), p, mode, limits);
  };
  for (int C : {16, 32, 64}) {
    for (const auto& [K, V, M] : {std::tuple{64, 64, 64}, {128, 128, 128}, {32, 128, 64}, {16, 64, 32}}) {
      EXPECT_TRUE(chunk_runs(C, K, V, M, Mode::fwd, kHopper)) << "C" << C << " " << K << "x" << V << "x" << M;
      EXPECT_TRUE(chunk_runs(C, K, V, M, Mode::fwdbwd, kHopper, 1))
          << "C" << C << " " << K << "x" << V << "x" << M;
    }
    // fp32 rows: the logit gradients' do, v and Hv take 218.5 KiB at C = 64 with V = M = 128 (250.5 before
    // p moved into Hv's room: gsa version 55)
    EXPECT_TRUE(chunk_runs(C, 128, 128, 128, Mode::fwdbwd, kHopper, 1, DType::fp32)) << "C" << C;
    EXPECT_TRUE(chunk_runs(C, 64, 64, 64, Mode::fwd, kAda)) << "C" << C;
    EXPECT_TRUE(chunk_runs(C, 64, 64, 64, Mode::fwdbwd, kAda, 1)) << "C" << C;
    EXPECT_EQ(chunk_runs(C, 64, 64, 64, Mode::fwdbwd, kAda, 1, DType::fp32), C <= 32) << "C" << C;
    EXPECT_TRUE(chunk_runs(C, 64, 64, 64, Mode::fwdbwd, kHopper)) << "grouped queries";
  }
  EXPECT_TRUE(chunk_runs(64, 256, 64, 64, Mode::fwd, kHopper)) << "q and k of K = 256 staged as bf16";
  EXPECT_FALSE(chunk_runs(64, 256, 64, 64, Mode::fwd, kHopper, 4, DType::fp32)) << "and as fp32";
  EXPECT_FALSE(chunk_runs(64, 64, 64, 256, Mode::fwd, kHopper)) << "M = 256: four warps' tiles";
  EXPECT_FALSE(chunk_runs(64, 24, 64, 64, Mode::fwd, kHopper));
  EXPECT_FALSE(chunk_runs(64, 64, 64, 40, Mode::fwd, kHopper));
  EXPECT_FALSE(chunk_runs(64, 64, 12, 64, Mode::fwd, kHopper));
}

TEST(VariantSupport, GsaNaiveKeepsBothStatesInSharedMemory) {
  EXPECT_TRUE(runs("gsa", "naive", 128, 128, Mode::fwdbwd, kHopper, 128, 4));
  EXPECT_TRUE(runs("gsa", "naive", 64, 64, Mode::fwdbwd, kAda, 64, 4));
  EXPECT_FALSE(runs("gsa", "naive", 128, 128, Mode::fwd, kAda, 128, 1));  // 2 x 64 KiB of state
  EXPECT_FALSE(runs("gsa", "naive", 256, 256, Mode::fwd, kHopper, 128, 1));
}

// With grouped queries (G > 1) gsa's fused_recurrent takes its own forms: columns of at most 32 keys or
// slots a thread.
TEST(VariantSupport, GsaFusedRecurrentHoldsColumnsOf32) {
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 128, 128, Mode::fwd, kHopper, 64, 4));
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 128, 128, Mode::fwd, kHopper, 128, 2));  // 512 threads per pass
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 128, 256, Mode::fwd, kHopper, 128, 2))
      << "pass 2: 1024 threads";
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 64, 32, Mode::fwd, kAda, 32, 2));
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 64, 64, Mode::fwd, kHopper, 48, 1));
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 64, 48, Mode::fwd, kHopper, 64, 1))
      << "V = 48: 3 pieces of 16 bytes";
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 64, 64, Mode::fwd, kHopper, 64, 3));
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 16, 64, Mode::fwd, kHopper, 64, 2)) << "K = 16";
  // the backward: the forward's split form, a dp scan over V and slot vectors kept per chunk
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 64, 64, Mode::fwdbwd, kHopper, 64, 4));
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 128, 128, Mode::fwdbwd, kHopper, 128, 2));
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 64, 16, Mode::fwdbwd, kAda, 64, 2));
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 64, 256, Mode::fwd, kHopper, 64, 2)) << "the split form";
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 32, 128, Mode::fwd, kHopper, 128, 2)) << "the split form";
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 64, 256, Mode::fwdbwd, kHopper, 64, 2))
      << "Hv's slot vectors of 256 values: 512 threads in the ds/df scan";
  EXPECT_FALSE(runs("gsa", "fused_recurrent", 128, 128, Mode::fwdbwd, kAda, 128, 4))
      << "16 tokens of slot vectors and of 4 query heads' rows: more than 99 KiB";
}

// With one query head a state pair both passes run on gla's fused kernels (kernels/gsa/gla_passes.cuh):
// K and V as gla's fused_recurrent takes them, M as the softmax kernels do, within shared memory; a 16-bit
// fwd+bwd only where the chunk form takes the backward (gla's own backward would take p and dz rounded to
// the inputs' type). On a GPU of 99 KiB a block it does not at K = 256, so there the 16-bit fwd+bwd is
// refused while bf16's forward alone runs.
TEST(VariantSupport, GsaFusedRecurrentWithOneQueryHeadTakesGlasShapes) {
  const auto gsa_problem = [](int K, int V, int M, int G, DType dtype = DType::bf16) {
    Problem p{1, 64, 1, K, V, dtype};
    p.M = M, p.G = G;
    return p;
  };
  for (const DType dtype : {DType::bf16, DType::fp32})
    for (int K : {16, 32, 64, 128, 256})
      for (int V : {16, 32, 64, 128, 256})
        for (int M : {32, 64, 128}) {
          SCOPED_TRACE(testing::Message()
                       << "K=" << K << " V=" << V << " M=" << M << " " << dtype_name(dtype));
          const Problem p = gsa_problem(K, V, M, 1, dtype);
          const auto gla_runs = [&](int keys, int values) {
            return runs("gla", "fused_recurrent", keys, values, Mode::fwdbwd, kHopper, 0, 1, dtype);
          };
          const bool gla_fwdbwd = gla_runs(K, V) && gla_runs(M, V) && gla_runs(M, K);
          const bool takes = gla_fwdbwd && (dtype == DType::fp32 || gsa_chunked_backward().runs(p, kHopper));
          EXPECT_EQ(gsa_fused_takes_gla_passes(p, Mode::fwdbwd, kHopper), takes);
          if (takes) {  // (braced: EXPECT_TRUE is an if-else of its own)
            EXPECT_TRUE(runs("gsa", "fused_recurrent", K, V, Mode::fwdbwd, kHopper, M, 1, dtype));
          }
        }
  EXPECT_TRUE(gsa_fused_takes_gla_passes(gsa_problem(256, 256, 64, 1), Mode::fwd, kAda));
  for (const DType dtype : {DType::bf16, DType::fp16}) {
    EXPECT_FALSE(gsa_chunked_backward().runs(gsa_problem(256, 256, 64, 1, dtype), kAda));
    EXPECT_FALSE(gsa_fused_takes_gla_passes(gsa_problem(256, 256, 64, 1, dtype), Mode::fwdbwd, kAda));
    EXPECT_FALSE(runs("gsa", "fused_recurrent", 256, 256, Mode::fwdbwd, kAda, 64, 1, dtype));
  }
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 16, 64, Mode::fwdbwd, kHopper, 64, 1));
  EXPECT_TRUE(runs("gsa", "fused_recurrent", 256, 256, Mode::fwdbwd, kHopper, 64, 1));
  EXPECT_FALSE(gsa_fused_takes_gla_passes(gsa_problem(64, 64, 64, 4), Mode::fwd, kHopper))
      << "grouped queries";
  EXPECT_FALSE(gsa_fused_takes_gla_passes(gsa_problem(64, 64, 48, 1), Mode::fwd, kHopper)) << "M = 48";
}

// A SharedMemoryCap lowers the shared memory a block the variants see while it lives, never raises it, and
// the innermost of nested caps holds.
TEST(VariantSupport, ASharedMemoryCapLowersTheRoomUntilItEnds) {
  const auto room = [] { return within_shared_memory_cap(kHopper).shared_memory_per_block; };
  EXPECT_EQ(room(), kHopper.shared_memory_per_block);
  {
    const SharedMemoryCap smaller(99 * 1024);
    EXPECT_EQ(room(), 99u * 1024);
    {
      const SharedMemoryCap larger(1 << 30);
      EXPECT_EQ(room(), kHopper.shared_memory_per_block);
      const SharedMemoryCap smallest(48 * 1024);
      EXPECT_EQ(room(), 48u * 1024);
    }
    EXPECT_EQ(room(), 99u * 1024);
    EXPECT_EQ(within_shared_memory_cap(kHopper).multiprocessors, kHopper.multiprocessors);
  }
  EXPECT_EQ(room(), kHopper.shared_memory_per_block);
}

}  // namespace
}  // namespace flabench
