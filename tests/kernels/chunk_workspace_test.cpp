// The chunk variant's workspace: every region inside the allocation, none overlapping, each 16-byte aligned
// (the kernels read and write its prepared operands in 16-byte vectors), for the dtypes, chunk sizes and head
// dims the variant takes.
#include <gtest/gtest.h>

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

#include "kernels/common/chunk/workspace.cuh"

namespace flabench {
namespace {

TEST(ChunkWorkspace, RegionsAreAlignedDisjointAndInside) {
  for (DType dtype : {DType::fp32, DType::fp16, DType::bf16})
    for (int C : {16, 32, 64})
      for (std::int64_t K : {16, 64, 128})
        for (std::int64_t V : {8, 48, 128})
          for (std::int64_t T : {1, 65, 1000}) {
            Problem p{2, T, 3, K, V, dtype, C};
            const std::size_t heads = 6, chunks = (T + C - 1) / C, x = chunk::prepared_size(dtype);
            const std::size_t bytes = chunk::workspace_bytes(p);
            std::vector<std::byte> storage(bytes + 16);  // cudaMalloc's allocations are 256-byte aligned
            auto* start = reinterpret_cast<std::byte*>(
                (reinterpret_cast<std::uintptr_t>(storage.data()) + 15) & ~std::uintptr_t{15});
            const chunk::Workspace ws = chunk::carve_workspace({start, bytes}, p);
            struct Region {
              const void* at;
              std::size_t size;
            };
            const std::vector<Region> regions = {
                {ws.states, sizeof(float) * heads * chunks * K * V},
                {ws.dstates, sizeof(float) * heads * chunks * K * V},
                {ws.du_partial, sizeof(float) * heads * chunks * K},
                {ws.whole, sizeof(float) * heads * chunks * K},
                {ws.dg_partial, sizeof(float) * heads * chunks * C * chunk::key_tiles(p)},
                {ws.keys_to_end, x * heads * chunks * C * K},
                {ws.queries_from_start, x * heads * chunks * C * K},
                {ws.scores, sizeof(float) * heads * chunks * C * C},
                {ws.bonus, sizeof(float) * heads * chunks * C}};
            const auto offset = [&](const void* at) {
              return std::size_t(static_cast<const std::byte*>(at) - start);
            };
            for (std::size_t r = 0; r < regions.size(); ++r) {
              const std::size_t from = offset(regions[r].at), to = from + regions[r].size;
              EXPECT_EQ(from % 16, 0u) << "region " << r << " C=" << C << " K=" << K << " V=" << V;
              EXPECT_LE(to, bytes) << "region " << r;
              if (r + 1 < regions.size()) {
                EXPECT_LE(to, offset(regions[r + 1].at)) << "region " << r;
              }
            }
          }
}

// simple_gla's bf16 inference forward keeps its scan factors where the prepared keys would go.
TEST(ChunkWorkspace, ScalarGateFactorsFitThePreparedKeysRoom) {
  for (int C : {16, 32, 64})
    for (std::int64_t K : {64, 128})
      for (std::int64_t T : {1, 65, 24576}) {
        const Problem p{2, T, 3, K, 64, DType::bf16, C};
        const std::size_t chunks = (T + C - 1) / C;
        EXPECT_EQ(chunk::scalar_factor_bytes(p), sizeof(float) * 6 * chunks * chunk::kFactorRow);
        EXPECT_LE(chunk::scalar_factor_bytes(p), sizeof(__nv_bfloat16) * 6 * chunks * C * K)
            << "C=" << C << " K=" << K;
      }
}

}  // namespace
}  // namespace flabench
