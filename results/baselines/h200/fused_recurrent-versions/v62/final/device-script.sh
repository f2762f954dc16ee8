#!/usr/bin/env bash
# stop 57 final (fused v62, its branch for rwkv7's form only): battery, the issue-3 table run, GPU tests
R=$PWD; B=/tmp/b71; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench-final.xz > $B/fla-bench; xz -dc build-part/flabench_tests.xz > $B/flabench_tests; chmod +x $B/fla-bench $B/flabench_tests
cd $OUT
timeout 100 $B/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; rc=$?; echo "check rc $rc"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
if [ $rc -ne 0 ]; then exit 1; fi
timeout 260 $B/fla-bench --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $OUT/fused_recurrent.json > $OUT/fused_recurrent.log 2>&1; echo "table rc $?"; tail -2 $OUT/fused_recurrent.log | head -1; grep -E "rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16" $OUT/fused_recurrent.log
xz -9 $OUT/fused_recurrent.json
FLA_BENCH_BINARY=$B/fla-bench LD_LIBRARY_PATH=$B/lib timeout 120 $B/flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED)|listed below" $OUT/gpu-tests.log
cd $OUT && tar cJf logs.tar.xz check.log && rm check.log
