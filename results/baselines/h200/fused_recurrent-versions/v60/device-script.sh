#!/usr/bin/env bash
# stop 57, v60: intra recomputed without U and k~ for fused_recurrent's chunk-form backward; the reverse scan's operand buffers by the forward state pass's fewest-waves rule. new = v60, base = v59 (1292f13)
R=$PWD; B=/tmp/b67; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-v59.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v60.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 100 $B/new/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; rc=$?; echo "check rc $rc"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
if [ $rc -ne 0 ]; then tar cJf logs.tar.xz check.log; exit 1; fi
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab67 2 --preset peer --axis C=32 --filter '^rwkv7/(fused_recurrent/(fwd|fwdbwd)|chunk/fwdbwd)/bf16' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v59.txt 2>&1
grep -A24 '^case' $OUT/ab-vs-v59.txt | head -40
timeout 120 $B/new/fla-bench profile --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16' --preset peer --axis C=32 --min-time 0.1 --min-samples 3 --out $OUT/profile.json > $OUT/profile.log 2>&1; echo "profile rc $?"; xz -9 $OUT/profile.json
grep -E "^rwkv7|dstates|intra|local|channel|fwd_kernel" $OUT/profile.log | head -80
cd /tmp/ab67 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz check.log && rm check.log
