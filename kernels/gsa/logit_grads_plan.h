// The shared memory of gsa chunk's logits and logit gradients (chunk_logits.cuh) and how many blocks an SM
// the logit gradients are built and launched for. Host-safe, so tests/kernels/gsa_logit_grads_plan_test.cpp
// checks both on the CPU.
#pragma once

#include <cstddef>

#include "kernels/common/chunk/block_shapes.h"
#include "kernels/variant.h"

namespace flabench::gsa {

constexpr int kLogitsThreads = 256;  // 8 warps: C / 16 row strips, the slots' tiles split among the rest

// The warps a row strip's slots split among: 8 / (C / 16) (block_shapes.h, strip_groups).
__host__ __device__ inline int logit_groups(int C) {
  return chunk::strip_groups(C, kLogitsThreads);
}
// The 8-slot tiles of logits each warp holds, at most (at most 8: M = 128 over two warps at C = 64).
__host__ __device__ inline int logit_tiles(int C, int M) {
  return chunk::strip_run(M, logit_groups(C));
}
// The tile count the kernels are built for: kExactLogitTiles where every warp holds exactly that many (the
// strip's tiles split evenly: M = 64 at chunks of 32, gsa's default), a count their products take as a
// constant, with no test, branch and WARPSYNC per tile (kernels/notes/chunk.md, version 60); else at most 4
// (80 registers, three blocks to an SM where shared memory allows; kernels/notes/gsa.md, C6) or 8, counted
// at run time.
constexpr int kExactLogitTiles = 2;
__host__ __device__ inline int logit_kernel_tiles(int C, int M) {
  if (M / 8 == kExactLogitTiles * logit_groups(C)) return kExactLogitTiles;
  return logit_tiles(C, M) <= 4 ? 4 : 8;
}

// The logits kernel's shared memory a block, bytes (rows of K), or the logit grads kernel's (rows of V), as
// chunk_logits.cuh lays them out (logits_floats); defined in chunk.cu, which compiles those kernels.
std::size_t logits_shared_bytes(const Problem& p, bool grads);

// The shared memory the runtime reserves a block (sm_80 and later): an SM's room is the opt-in maximum a
// block plus this.
constexpr std::size_t kSharedReservedPerBlock = 1024;

// Whether four blocks of `bytes` of shared memory fit one of the device's SMs: 48.25 KiB a block at chunks
// of 32 with M = K = V = 64 in 16 bits does on a Hopper (228 KiB an SM), not on an A100 (164) or an RTX 40xx
// (100), nor anything of 56 KiB or more a block.
inline bool four_logit_grads_blocks_fit(std::size_t bytes, const DeviceLimits& device) {
  return 4 * (bytes + kSharedReservedPerBlock) <= device.shared_memory_per_block + kSharedReservedPerBlock;
}

// The blocks an SM the kernel's launch bounds ask for, from the 8-slot tiles of logits a warp holds (2, 4 or
// 8, logit_kernel_tiles): four for 16-bit inputs at 2 or 4 tiles where four fit (64 registers; a block's
// waits on its staging and barriers then have three blocks beside them: kernels/notes/gsa.md, version 55),
// else three at 2 or 4 tiles (80 registers) and two at 8. fp32 inputs stage x and y in fp32: never four.
constexpr int logit_grads_blocks(int tiles, int input_bytes, bool four_fit) {
  return tiles > 4 ? 2 : (input_bytes == 2 && four_fit ? 4 : 3);
}

}  // namespace flabench::gsa
