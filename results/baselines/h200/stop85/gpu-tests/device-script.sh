#!/bin/bash
# stop 85's final build (gsa versions 59-60 and fused_recurrent version 93 on 30cd805's code): the GPU tests
# (workspaces, the CUDA variants, the profiler, the fused layouts).
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s85d; mkdir -p $R; cp run-s85d.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
timeout 200 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*:FusedLayout.*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 8 $R/gpu-tests.log
