#!/usr/bin/env bash
# stop 56, final build (5bd234c): GPU tests
R=$PWD; B=/tmp/b66; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench-new.xz > $B/fla-bench; xz -dc build-part/flabench_tests.xz > $B/flabench_tests; chmod +x $B/fla-bench $B/flabench_tests
cd $OUT
FLA_BENCH_BINARY=$B/fla-bench LD_LIBRARY_PATH=$B/lib timeout 150 $B/flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $OUT/gpu-tests.log | head -8; grep -c "SKIPPED \]" $OUT/gpu-tests.log
