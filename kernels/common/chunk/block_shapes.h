// How the chunk kernels share their blocks among warps: the thread counts of the launches and each warp's
// share of the output tiles, the same numbers on the host (launches) and in the kernels. Host-safe (no device
// code), so tests/kernels/chunk_block_shapes_test.cpp checks on the CPU that every chunk size and head dim
// the variant takes gives every warp whole tiles and covers every column once.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

namespace flabench::chunk {

constexpr int kSubChunk = 16;  // tokens to a sub-chunk: a warp's strip of rows
constexpr int kMaxChunk = 64;
constexpr int kMaxStripTiles = kMaxChunk / kSubChunk;  // 8-column tiles a warp holds in a strip, at most

// The scan (scan.cuh): a block per (batch, head, kScanTile x kScanTile tile of the state), kScanBlocksPerSm
// blocks an SM (its launch bound).
constexpr int kScanTile = 32;
constexpr int kScanBlocksPerSm = 4;
__host__ __device__ inline int scan_tiles(int size) {
  return (size + kScanTile - 1) / kScanTile;
}
// The scan's blocks a run over `heads` heads of K x V states (within an int where index_limits allows).
__host__ __device__ inline int scan_blocks(int heads, int K, int V) {
  return heads * scan_tiles(K) * scan_tiles(V);
}

// The output pass: 8 warps for a block of 64 values, 16 for 128, a warp to every 8 values, so that every warp
// holds C / 16 tiles of its strip of o and a block of 128 values, alone on its SM where shared memory allows
// no second one, still has 16 warps to hide its loads' latency (kernels/notes/chunk.md, version 18).
constexpr int kOutputMaxThreads = 512;
__host__ __device__ inline int output_threads(int VT) {
  return 4 * VT;
}

// The output pass's key channels staged at a time: all K, or 32 for 64-token chunks of K >= 128 (a multiple
// of 32: every tile whole), whose whole-K block (212 KiB at K = V = 128) had an SM to itself and ran its
// phases (staging, scores, products) one after another with no other block to fill the gaps (ncu: 25%
// occupancy, 27% of the stall samples at barriers); with tiles of 32 channels (81 KiB) two blocks share an
// SM. Measured (kernels/notes/chunk.md, version 37): 0.91-0.95x at C = 64, D = 128; tiles elsewhere the
// same or slower (1.13-1.23x at C = 32, D = 64).
__host__ __device__ inline int output_key_tile(int C, int K) {
  return C == kMaxChunk && K >= 128 && K % 32 == 0 ? 32 : K;
}

// The value gradients: blocks of 64 values; 8 warps, or 16 for the chunks whose shared memory leaves room for
// at most two blocks to an SM (C K >= 64 x 64: 98-185 KiB), so that an SM still has 32 warps to hide the
// loads' latency. Each warp takes 16 rows and value_grads_tiles 8-column tiles of the chunk's [C][64] dv.
// Measured (notes, version 18): 16 warps at K = 128 gave 2.34 -> 2.13 ms (C = 32) and 3.75 -> 3.09 ms (C =
// 64); at K = 64, C = 32 (three blocks to an SM) they cost 0.29 -> 0.37 ms, each warp rebuilding A's
// fragments for fewer columns.
constexpr int kGradValues = 64;
constexpr int kValueGradMaxThreads = 512;
__host__ __device__ inline int value_grads_threads(int C, int K) {
  return C >= 32 && C * K >= 64 * 64 ? 512 : 256;
}
__host__ __device__ inline int value_grads_tiles(int C, int threads) {
  return C / (threads / 16);
}
// The value gradients' key channels staged at a time (their share of A, then of the state product): the
// output pass's rule, for the same reason. The whole-K block (171 KiB at K = V = 128, C = 64) had an SM to
// itself (ncu: 25% occupancy, 34% of the stall samples at barriers); tiles of 32 take 64 KiB, two blocks an
// SM. Measured (kernels/notes/chunk.md, version 39): the kernel 0.82-0.87x, fwd+bwd at C = 64, D = 128
// 0.94-0.96x, no other case moved; and with tiles K = 256 runs at C = 64.
__host__ __device__ inline int value_grads_key_tile(int C, int K) {
  return output_key_tile(C, K);
}

// The key gradients: 8 warps, three blocks an SM (80 registers); 16 warps at C = 64 with 16-bit inputs,
// whose 101 KiB block leaves room for two an SM, so that an SM has 32 warps rather than 16 to hide the
// loads' latency (64 registers, no spill in bf16; fp32's would spill). Measured (kernels/notes/chunk.md,
// version 41): 16 warps 0.97-0.98x fwd+bwd at D = 128, C = 64, the same at D = 64.
constexpr int kKeyGradThreads = 256, kKeyGradMaxThreads = 512;
constexpr int kKeyTile = 32;  // key channels to a key-gradient block
__host__ __device__ constexpr int key_grads_threads(int C, int input_bytes) {
  return C == kMaxChunk && input_bytes == 2 ? kKeyGradMaxThreads : kKeyGradThreads;
}
// A block's warps over a product's rows in 16-row strips (C / 16 of them) and its 8-column tiles (`columns`
// wide): each strip's strip_groups warps take runs of strip_run tiles, the last warps what is left (maybe
// none). The key gradients' value loop (dA's C columns, a state product's 32 channels) and gsa's slot
// products (M slots) deal their tiles so.
__host__ __device__ constexpr int strip_groups(int C, int threads) {
  return threads / 32 / (C / kSubChunk);
}
__host__ __device__ constexpr int strip_run(int columns, int groups) {
  return (columns / 8 + groups - 1) / groups;
}
// Where the key gradients' tiles split evenly over the warps of a strip, every warp takes this many and the
// loop is compiled for that count: a count known only at run time put a test, a branch and a WARPSYNC before
// each tile's ldmatrix and mma (ncu, stop 91: a third of the loop's instructions). 0 where some warps take
// fewer (C = 16), which keep the run-time count.
__host__ __device__ constexpr int key_grads_even_tiles(int C, int columns, int threads) {
  const int groups = strip_groups(C, threads), tiles = columns / 8;
  return tiles % groups == 0 ? tiles / groups : 0;
}

}  // namespace flabench::chunk
