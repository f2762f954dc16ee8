#!/usr/bin/env bash
# stop 58 final build (fused v63 with the fp32 rule and the saving forward's launch bound): GPU tests
B=/tmp/b6; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench.xz > $B/fla-bench; xz -dc build-part/flabench_tests.xz > $B/flabench_tests; chmod +x $B/fla-bench $B/flabench_tests
export LD_LIBRARY_PATH=$B/lib
FLA_BENCH_BINARY=$B/fla-bench timeout 150 $B/flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED)|listed below|FAILED|worst rms" $OUT/gpu-tests.log | head -30
