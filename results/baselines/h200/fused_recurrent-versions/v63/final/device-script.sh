#!/usr/bin/env bash
# stop 58 final (fused v63, build 18b9389): battery, the issue-3 table run, profile of the D = 128 fwd+bwd, GPU tests
B=/tmp/b3; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench.xz > $B/fla-bench; xz -dc build-part/flabench_tests.xz > $B/flabench_tests; chmod +x $B/fla-bench $B/flabench_tests
export LD_LIBRARY_PATH=$B/lib
cd $OUT
timeout 100 $B/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; rc=$?; echo "check rc $rc"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
if [ $rc -ne 0 ]; then exit 1; fi
timeout 230 $B/fla-bench --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $OUT/fused_recurrent.json > $OUT/fused_recurrent.log 2>&1; echo "table rc $?"; tail -2 $OUT/fused_recurrent.log | head -1
xz -9 $OUT/fused_recurrent.json
timeout 60 $B/fla-bench profile --filter '^(gla|simple_gla|rwkv6)/fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K128' --preset peer --no-check --out $OUT/profile.json > $OUT/profile.log 2>&1; echo "profile rc $?"; xz -9 $OUT/profile.json
FLA_BENCH_BINARY=$B/fla-bench timeout 150 $B/flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED)|listed below|FAILED" $OUT/gpu-tests.log | head
cd $OUT && tar cJf logs.tar.xz check.log && rm check.log
