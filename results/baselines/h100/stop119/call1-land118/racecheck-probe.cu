// Does compute-sanitizer's racecheck flag the fused forwards' stage hand-back when it is correct? A block of
// three warpgroups in the prepared fused forward's pattern (kernels/common/chunk/prepared_fused_forward.cu):
// the loads fill a ring of three stages by cp.async (or by plain stores: argv[2] = 1), two chunks ahead, and
// arrive on the stage's full barrier; the state and the outputs sync on it, read the stage and arrive on its
// empty barrier, which the loads sync on before refilling it. The state reads its tile early in its step,
// the outputs read theirs last, just before they arrive (as store_outputs reads back its staging). argv[1]:
// 0 the outputs read the stage's tile; 1 they first overwrite their rows of it (st.shared, __syncwarp), as
// store_outputs' stmatrix does; 2 they call store_outputs itself (stmatrix, __syncwarp, the read-back), the
// code racecheck flagged. Nothing here races: any hazard racecheck reports is its model's.
// It uses the kernels' own barrier and cp.async helpers, so that it tests the instructions they issue.
// Build from the root of a checkout of main from 751b539 on (mode 2 calls version 114's store_outputs,
// which main gained then): nvcc -arch=sm_90a -DFLA_BENCH_SM90A -std=c++20 -O3 -I. -o probe
// PATH/racecheck-probe.cu; run: compute-sanitizer --tool racecheck probe M P.
#include <cstdio>
#include <cstdlib>

#include "kernels/common/chunk/fused_roles.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/named_barrier.cuh"

using flabench::NamedBarrier;

constexpr int kStages = 3, kAhead = 2, kChunks = 18, kTile = 8192, kSmall = 1024, kGroup = 128;

__device__ NamedBarrier full(int s) {
  return {1 + s, 3 * kGroup};
}
__device__ NamedBarrier empty(int s) {
  return {1 + kStages + s, 3 * kGroup};
}

// chunk n's tile and small tile into its stage, 16 bytes a copy, one cp.async group (empty where `async` is
// off: the copies are plain loads and stores then)
__device__ void load(unsigned char* smem, const unsigned char* in, int n, int thread, bool async) {
  unsigned char* stage = smem + (n % kStages) * (kTile + kSmall);
  const unsigned char* from = in + std::size_t(n) * (kTile + kSmall);
  for (int i = thread; i < (kTile + kSmall) / 16; i += kGroup) {
    if (async)
      flabench::cp_async16_or_zeros(stage + 16 * i, from + 16 * i, true);
    else
      *reinterpret_cast<uint4*>(stage + 16 * i) = *reinterpret_cast<const uint4*>(from + 16 * i);
  }
  flabench::cp_async_commit();
}

__global__ void probe(const unsigned char* in, float* out, __nv_bfloat16* rows_out, int overwrite,
                      int async) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int role = threadIdx.x / kGroup, thread = threadIdx.x % kGroup;
  float sum = 0.0f;
  if (role == 0) {  // the loads
    for (int n = 0; n < kAhead; ++n) load(smem, in, n, thread, async);
    for (int n = 0; n < kChunks; ++n) {
      flabench::cp_async_wait<kAhead - 1>();
      full(n % kStages).arrive();
      const int next = n + kAhead;
      if (next < kChunks) {
        if (next >= kStages) empty(next % kStages).sync();
        load(smem, in, next, thread, async);
      } else {
        flabench::cp_async_commit();
      }
    }
    return;
  }
  for (int n = 0; n < kChunks; ++n) {
    const int s = n % kStages;
    unsigned char* stage = smem + s * (kTile + kSmall);
    full(s).sync_unaligned();
    if (role == 1) {  // the state: its small tile first, then a long step
      sum += reinterpret_cast<const float*>(stage + kTile)[thread % (kSmall / 4)];
      for (int i = 0; i < 2000; ++i) sum = sum * 0.999f + 1.0f;
    } else {  // the outputs: a long step, then their tile last
      for (int i = 0; i < 2000; ++i) sum = sum * 0.999f + 1.0f;
      if (overwrite == 2) {  // the flagged code: a 64 x 32 output tile through the stage's tile
        float o[16];
        for (int r = 0; r < 16; ++r) o[r] = sum + r;
        flabench::chunk::roles::store_outputs<16>(o, stage, rows_out + blockIdx.x * 64 * 32, 32, 64, 1.0f);
      } else {
        uint4* rows = reinterpret_cast<uint4*>(stage) + (thread / 32) * (kTile / 16 / 4);
        const int lane = thread % 32;
        if (overwrite) {
          rows[lane] = make_uint4(n, lane, 0, 0);
          rows[lane + 32] = make_uint4(n, lane, 1, 0);
          __syncwarp();
        }
        const uint4 a = rows[(lane + 1) % 32], b = rows[32 + (lane + 1) % 32];
        sum += float(a.x + a.y + b.z + b.w);
      }
    }
    if (n + kStages < kChunks) empty(s).arrive();
  }
  out[blockIdx.x * 2 * kGroup + threadIdx.x - kGroup] = sum;
}

int main(int argc, char** argv) {
  const int overwrite = argc > 1 ? std::atoi(argv[1]) : 0, async = argc > 2 ? std::atoi(argv[2]) == 0 : 1;
  const int blocks = 8;
  const std::size_t bytes = std::size_t(kChunks) * (kTile + kSmall);
  unsigned char* in;
  float* out;
  __nv_bfloat16* rows_out;
  if (cudaMalloc(&in, bytes) != cudaSuccess || cudaMalloc(&rows_out, blocks * 64 * 32 * 2) != cudaSuccess ||
      cudaMalloc(&out, blocks * 2 * kGroup * sizeof(float)) != cudaSuccess)
    return std::fprintf(stderr, "probe: cudaMalloc failed\n"), 2;
  if (cudaMemset(in, 1, bytes) != cudaSuccess) return std::fprintf(stderr, "probe: cudaMemset failed\n"), 2;
  const int shared = kStages * (kTile + kSmall);
  probe<<<blocks, 3 * kGroup, shared>>>(in, out, rows_out, overwrite, async);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("probe overwrite=%d async=%d: %s\n", overwrite, async, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
