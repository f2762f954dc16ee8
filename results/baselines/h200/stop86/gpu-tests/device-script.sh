#!/bin/bash
# stop 86's final build (gsa version 61 on 854322b's code; every object built with its header dependencies):
# the GPU tests (workspaces, the CUDA variants, the profiler, the fused layouts).
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s86d; mkdir -p $R; cp run-s86d.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
timeout 200 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*:FusedLayout.*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 8 $R/gpu-tests.log
