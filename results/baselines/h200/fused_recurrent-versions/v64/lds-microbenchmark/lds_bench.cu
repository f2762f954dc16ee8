// Record (fused_recurrent version 64): shared-memory wavefronts of a warp's 16-, 8- and 4-byte reads by how
// many distinct pieces each quarter warp reads. Built with `nvcc -O3 -arch=sm_90 -o lds_bench lds_bench.cu`
// and run under `ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,
// smsp__inst_executed_op_shared_ld.sum` (lds-ncu.txt): wavefronts / instructions is the cost of a read.
// The clock64 column it prints (lds.txt) is not a measurement: the compiler kept only part of the loop's
// reads (ncu counts a quarter of the 16-byte ones), so only ncu's ratio is used.
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ int piece(int pattern, int lane) {
  switch (pattern) {
    case 0: return 0;                 // whole warp one piece
    case 1: return lane >> 3;         // one piece per quarter (4 distinct)
    case 2: return lane >> 2;         // two per quarter (8 distinct)
    case 3: return lane & 7;          // eight per quarter, the same eight in each (8 distinct): today's KG=8
    case 4: return lane;              // all distinct
    case 5: return lane >> 4;         // one per half-warp (2 distinct)
    case 6: return lane & 1;          // two per quarter, same two in each
    default: return 0;
  }
}

template <int kWidth>  // bytes per load: 16, 8 or 4
__global__ void bench(int pattern, int iters, unsigned long long* cycles, unsigned* sink) {
  __shared__ __align__(16) uint4 buf[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = make_uint4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // rows of 32 pieces (512 B) apart per unrolled load; pieces within a row consecutive (conflict-free)
  const unsigned base = (unsigned)__cvta_generic_to_shared(buf) + (warp & 7) * 32 * 16 * 8 + piece(pattern, lane) * kWidth;
  unsigned acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
  __syncthreads();
  const unsigned long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const unsigned addr = base + u * 512;
      if constexpr (kWidth == 16) {
        unsigned a, b, c, d;
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
        acc0 ^= a; acc1 ^= b; acc2 ^= c; acc3 ^= d;
      } else if constexpr (kWidth == 8) {
        unsigned a, b;
        asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
        acc0 ^= a; acc1 ^= b;
      } else {
        unsigned a;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr));
        acc0 ^= a;
      }
    }
  }
  const unsigned long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(cycles, t1 - t0);
  if ((acc0 ^ acc1 ^ acc2 ^ acc3) == 0x12345678u) sink[0] = 1;
}

int main() {
  unsigned long long* cycles;
  unsigned* sink;
  cudaMalloc(&cycles, 8);
  cudaMalloc(&sink, 4);
  const int iters = 4096, threads = 1024;
  const char* names[] = {"warp-uniform", "1/quarter", "2/quarter (lane>>2)", "8/quarter same in each (lane&7)",
                         "32 distinct", "1/half", "2/quarter same (lane&1)"};
  for (int width : {16, 8, 4}) {
    for (int pattern = 0; pattern < 7; ++pattern) {
      cudaMemset(cycles, 0, 8);
      if (width == 16) bench<16><<<1, threads>>>(pattern, iters, cycles, sink);
      if (width == 8) bench<8><<<1, threads>>>(pattern, iters, cycles, sink);
      if (width == 4) bench<4><<<1, threads>>>(pattern, iters, cycles, sink);
      unsigned long long c = 0;
      cudaMemcpy(&c, cycles, 8, cudaMemcpyDeviceToHost);
      const double loads = double(threads / 32) * iters * 8;  // warp-level load instructions in the SM
      printf("width %2d  %-34s  cycles per warp load instruction (SM-wide) %.3f\n", width, names[pattern],
             double(c) / loads);
    }
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
}
