#!/usr/bin/env bash
# stop 57 final (f4c3ef4, fused v60 / rwkv7 chunk v49): the issue-3 table run, the issue-5 table run, GPU tests; ncu of the saving and plain rwkv7 forwards at 4,4096,16,128
R=$PWD; B=/tmp/b69; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench-final.xz > $B/fla-bench; xz -dc build-part/flabench_tests.xz > $B/flabench_tests; chmod +x $B/fla-bench $B/flabench_tests
cd $OUT
timeout 280 $B/fla-bench --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $OUT/fused_recurrent.json > $OUT/fused_recurrent.log 2>&1; echo "table rc $?"; tail -3 $OUT/fused_recurrent.log | head -1; grep -E "rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16" $OUT/fused_recurrent.log
xz -9 $OUT/fused_recurrent.json
timeout 120 $B/fla-bench --filter '^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16' --preset peer --axis C=16,32,64 --min-time 0.2 --min-samples 5 --out $OUT/rwkv7-chunk.json > $OUT/rwkv7-chunk.log 2>&1; echo "issue5 rc $?"; tail -3 $OUT/rwkv7-chunk.log | head -1; xz -9 $OUT/rwkv7-chunk.json
FLA_BENCH_BINARY=$B/fla-bench LD_LIBRARY_PATH=$B/lib timeout 150 $B/flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED|SKIPPED" $OUT/gpu-tests.log | head -6
mkdir -p $OUT/ncu
for mode in fwdbwd fwd; do
  timeout 100 ncu --set full --import-source yes -k "regex:fused_recurrent_fwd" --launch-count 1 -o /tmp/fwd-$mode $B/fla-bench --filter "^rwkv7/fused_recurrent/$mode/bf16" --axis B=4 --axis T=4096 --axis H=16 --axis D=128 --profile-once --no-check --out /tmp/j-$mode.json > /tmp/fwd-$mode.log 2>&1; echo "ncu $mode rc $?"
  ncu --import /tmp/fwd-$mode.ncu-rep --page details > $OUT/ncu/fwd-$mode-details.txt 2>&1
  ncu --import /tmp/fwd-$mode.ncu-rep --page source --csv --print-source sass > $OUT/ncu/fwd-$mode-source.csv 2>&1; gzip -9 $OUT/ncu/fwd-$mode-source.csv
done
cd $OUT && true
