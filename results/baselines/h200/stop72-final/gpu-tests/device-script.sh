#!/bin/bash
# stop 72's landed build (a14514b): the GPU tests of gsa's CUDA variants and the workspaces
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/gpu-tests; mkdir -p $R; cp run-s72d.sh $R/device-script.sh
timeout 200 ./tests --gtest_filter='*CudaVariant*gsa*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "rc $?"; tail -n 8 $R/gpu-tests.log
(cd /tmp && tar -cJf $OUT/gpu-tests.tar.xz gpu-tests)
