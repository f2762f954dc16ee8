#!/bin/bash
# stop 76's final build: the GPU tests (workspaces, the CUDA variants, the profiler)
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s76d; mkdir -p $R; cp run-s76d.sh $R/device-script.sh
timeout 240 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 15 $R/gpu-tests.log
