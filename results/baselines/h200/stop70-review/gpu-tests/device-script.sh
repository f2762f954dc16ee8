#!/bin/bash
# stop 70's review build (f713072): the GPU tests (workspaces, the CUDA variants, the profiler)
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-review-gpu-tests; mkdir -p $R; cp run-gpu-tests.sh $R/device-script.sh
./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 15 $R/gpu-tests.log
