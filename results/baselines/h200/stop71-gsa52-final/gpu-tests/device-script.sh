#!/bin/bash
# stop 71's final build (39596e0): the GPU tests (workspaces, the CUDA variants, the profiler)
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-gpu-tests; mkdir -p $R; cp run-gpu-tests.sh $R/device-script.sh
timeout 170 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 15 $R/gpu-tests.log
