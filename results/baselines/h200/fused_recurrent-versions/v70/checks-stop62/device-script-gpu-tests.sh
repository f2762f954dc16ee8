#!/bin/bash
cd build-part; xz -dc flabench_tests.xz > ft; chmod +x ft; export LD_LIBRARY_PATH=$PWD/lib
mkdir -p $OUT/s62
timeout 400 ./ft --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/s62/gpu-tests.log 2>&1; echo "tests rc $?"
grep -E "PASSED|FAILED|tests ran" $OUT/s62/gpu-tests.log | head -8; grep -c "SKIPPED \]" $OUT/s62/gpu-tests.log
