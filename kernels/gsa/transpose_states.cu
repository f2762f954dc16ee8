// gsa's one state transpose (transpose_states.h): its kernel in a translation unit of its own, which both gsa
// variants' units call.
#include "kernels/gsa/transpose_states.h"

#include <stdexcept>

#include "kernels/common/cuda_check.h"

namespace flabench::gsa {
namespace {

constexpr int kTransposeTile = 32;   // a tile's side
constexpr int kTransposeRows = 8;    // the rows a round of the block's threads reads
constexpr int kTransposeVector = 4;  // floats a thread moves at once: 16 bytes
constexpr int kTransposeThreads = kTransposeTile / kTransposeVector * kTransposeRows;  // 64

// Matrices [R x C] (fp32) into [C x R]: of runs of `per_head` matrices, `count` of each from `first`, one a
// blockIdx.x; tile blockIdx.y. A thread of 8 x 8 moves four floats of four of the tile's rows in, four of
// four of its columns out.
__global__ void __launch_bounds__(kTransposeThreads)
    transpose_states_kernel(const float* from, float* to, int R, int C, std::int64_t per_head,
                            std::int64_t first, std::int64_t count) {
  constexpr int W = kTransposeVector;
  // padded: a round's reads and writes of the tile cross each bank once (row + 4 x + element, mod 32)
  __shared__ float tile[kTransposeTile][kTransposeTile + 1];
  const std::int64_t matrix = blockIdx.x / count * per_head + first + blockIdx.x % count;
  const std::int64_t base = matrix * R * C;
  const int tiles_across = (C + kTransposeTile - 1) / kTransposeTile;
  const int r0 = blockIdx.y / tiles_across * kTransposeTile, c0 = blockIdx.y % tiles_across * kTransposeTile;
  const int x = int(threadIdx.x) * W;
  constexpr int kRounds = kTransposeTile / kTransposeRows;
  // every round's load issued before the first is waited on: four in flight a thread
  float4 v[kRounds];
#pragma unroll
  for (int j = 0; j < kRounds; ++j) {
    const int i = int(threadIdx.y) + j * kTransposeRows;
    if (r0 + i < R && c0 + x < C)  // C % 4 == 0: a vector inside the row is inside the matrix
      v[j] = *reinterpret_cast<const float4*>(from + base + std::int64_t(r0 + i) * C + c0 + x);
  }
#pragma unroll
  for (int j = 0; j < kRounds; ++j) {
    const int i = int(threadIdx.y) + j * kTransposeRows;
    const float* part = reinterpret_cast<const float*>(&v[j]);
    if (r0 + i < R && c0 + x < C)
#pragma unroll
      for (int e = 0; e < W; ++e) tile[i][x + e] = part[e];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kRounds; ++j) {
    const int i = int(threadIdx.y) + j * kTransposeRows;
    if (c0 + i < C && r0 + x < R) {
      float4 out;
      float* part = reinterpret_cast<float*>(&out);
#pragma unroll
      for (int e = 0; e < W; ++e) part[e] = tile[x + e][i];
      *reinterpret_cast<float4*>(to + base + std::int64_t(c0 + i) * R + r0 + x) = out;
    }
  }
}

}  // namespace

void transpose_states(const float* from, float* to, std::int64_t count, int R, int C, cudaStream_t stream) {
  transpose_states(from, to, 1, count, 0, count, R, C, stream);
}

void transpose_states(const float* from, float* to, std::int64_t heads, std::int64_t per_head,
                      std::int64_t first, std::int64_t count, int R, int C, cudaStream_t stream) {
  if (heads * count == 0) return;
  if (R % 4 != 0 || C % 4 != 0 || reinterpret_cast<std::uintptr_t>(from) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(to) % 16 != 0)
    throw std::logic_error(
        "gsa transpose_states: sides a multiple of 4 and 16-byte aligned buffers expected");
  const dim3 grid(unsigned(heads * count), unsigned((R + kTransposeTile - 1) / kTransposeTile *
                                                    ((C + kTransposeTile - 1) / kTransposeTile)));
  transpose_states_kernel<<<grid, dim3(kTransposeTile / kTransposeVector, kTransposeRows), 0, stream>>>(
      from, to, R, C, per_head, first, count);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::gsa
