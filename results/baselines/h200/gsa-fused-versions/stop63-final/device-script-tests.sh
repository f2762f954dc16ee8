#!/bin/bash
cd build-part; xz -dc flabench_tests.xz > ft; chmod +x ft; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/tests; mkdir -p $R
timeout 400 ./ft --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $R/gpu-tests.log 2>&1; echo "tests rc=$?"
grep -E "PASSED|FAILED|SKIPPED|tests ran" $R/gpu-tests.log | sort | uniq -c | sort -rn | head -20
cd $OUT && tar -cJf tests.tar.xz tests && rm -rf tests
