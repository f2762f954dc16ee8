#!/bin/bash
# stop 77's final build (0625b6d): the GPU tests (workspaces, the CUDA variants, the profiler)
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s77f; mkdir -p $R; cp run-s77f.sh $R/device-script.sh
timeout 170 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 6 $R/gpu-tests.log
