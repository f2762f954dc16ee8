#!/bin/bash
# stop 67: the GPU tests of flabench_tests (every CUDA variant against the fp64 reference, the workspaces, the
# profiler) on the committed build
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/gpu-tests; mkdir -p $R
cp run-gpu-tests.sh $R/device-script.sh
./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "tests rc=$?"; tail -n 6 $R/gpu-tests.log
cd $OUT && tar -cJf gpu-tests.tar.xz gpu-tests && rm -rf gpu-tests
