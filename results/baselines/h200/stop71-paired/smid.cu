// Where a launch's blocks land: %smid of every block, launched plain and in clusters of two.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void where(int* out) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = int(smid);
  // hold the SM for a while so that the blocks are resident together
  long long start = clock64();
  while (clock64() - start < 20000000) {}
}
int main() {
  int* out;
  const int n = 64;
  cudaMalloc(&out, n * sizeof(int));
  int host[n];
  for (int paired = 0; paired < 2; ++paired) {
    cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(16, 4), config.blockDim = dim3(384), config.dynamicSmemBytes = 100000;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 2, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
    config.attrs = &cluster, config.numAttrs = paired;
    cudaError_t e = cudaLaunchKernelEx(&config, where, out);
    cudaDeviceSynchronize();
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    printf("%s (%s):", paired ? "clusters of 2" : "plain", cudaGetErrorString(e));
    int same_tpc = 0;
    for (int i = 0; i < n; i += 2) {
      printf(" %d/%d", host[i], host[i + 1]);
      same_tpc += host[i] / 2 == host[i + 1] / 2;
    }
    printf("\n  pairs (x, x+1) on one TPC (smid / 2): %d of %d\n", same_tpc, n / 2);
  }
}
