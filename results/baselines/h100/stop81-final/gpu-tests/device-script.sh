#!/bin/bash
# stop 81's final build (fused_recurrent version 90 on 449269c): the GPU tests (workspaces, the CUDA
# variants, the profiler), the new layout's CPU test beside them.
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s81f; mkdir -p $R; cp run-s81f.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
timeout 250 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*:FusedLayout.*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 8 $R/gpu-tests.log
