#!/bin/bash
# stop 88: the GPU tests on stop 87's final kernels (11852bf's; built at 3922f68, which changed no source):
# workspaces, the CUDA variants (rwkv7's pieced forward and backward among them), the profiler, the fused
# layouts.
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s88c; mkdir -p $R; cp run-s88c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
timeout 400 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*:FusedLayout.*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 8 $R/gpu-tests.log
