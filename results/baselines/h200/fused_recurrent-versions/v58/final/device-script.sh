#!/usr/bin/env bash
# stop 56, fused v58 final: the issue-3 table run, rwkv7 battery, GPU tests, profile
R=$PWD; B=/tmp/b63; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench-new.xz > $B/fla-bench; xz -dc build-part/flabench_tests.xz > $B/flabench_tests; chmod +x $B/fla-bench $B/flabench_tests
cd $OUT
timeout 100 $B/fla-bench check --filter rwkv7 --out $OUT/check-rwkv7.json > $OUT/check-rwkv7.log 2>&1; echo "check rc $?"; tail -2 $OUT/check-rwkv7.log | head -1; xz -9 $OUT/check-rwkv7.json
timeout 330 $B/fla-bench --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $OUT/fused_recurrent.json > $OUT/fused_recurrent.log 2>&1; echo "run rc $?"; tail -4 $OUT/fused_recurrent.log | head -2; grep -E "rwkv7/fused_recurrent/fwd" $OUT/fused_recurrent.log
FLA_BENCH_BINARY=$B/fla-bench LD_LIBRARY_PATH=$B/lib timeout 150 $B/flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED|SKIPPED" $OUT/gpu-tests.log | head -8
timeout 60 $B/fla-bench profile --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)' --preset peer --min-time 0.1 --min-samples 3 --out $OUT/profile.json > $OUT/profile.log 2>&1; echo "profile rc $?"; xz -9 $OUT/profile.json
xz -9 $OUT/fused_recurrent.json
cd $OUT && tar cJf logs.tar.xz gpu-tests.log check-rwkv7.log && rm gpu-tests.log check-rwkv7.log
