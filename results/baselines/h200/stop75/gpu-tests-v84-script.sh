#!/bin/bash
# prepared at stop 74 for the next session: the GPU tests on the final build (e7a6071: fused_recurrent
# version 84), which versions 83-84 have not had. Carry build-part/flabench_tests.xz (built from e7a6071),
# build-part/lib and this script (fla-bench.xz does not fit beside the tests in one call's carry).
cd build-part; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75a; mkdir -p $R; cp run-s75a.sh $R/device-script.sh
timeout 300 ./tests --gtest_filter='*CudaVariant*:GpuProfile*:*Workspace*' > $R/gpu-tests.log 2>&1; echo "rc $?"
tail -n 15 $R/gpu-tests.log
(cd /tmp && tar -cJf $OUT/s75a.tar.xz s75a)
