#!/usr/bin/env bash
# stop 56, fused v59 (dangling else mended): checkpoints at chunk starts only before rwkv7's chunk-form backward (new) against v58 0208ca4 (base); then the issue-3 table on the new build
R=$PWD; B=/tmp/b65; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-new.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v59.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 100 $B/new/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; rc=$?; echo "check rc $rc"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
if [ $rc -ne 0 ]; then tar cJf logs.tar.xz check.log; exit 1; fi
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab65 1 --preset peer --filter '^(rwkv7/fused_recurrent/fwdbwd|(gla|rwkv6)/fused_recurrent/fwd)/bf16' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v58.txt 2>&1
grep -A16 '^case' $OUT/ab-vs-v58.txt
timeout 260 $B/new/fla-bench --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $OUT/fused_recurrent.json > $OUT/fused_recurrent.log 2>&1; echo "run rc $?"; tail -4 $OUT/fused_recurrent.log | head -2; grep -E "rwkv7/fused_recurrent/fwdbwd/bf16" $OUT/fused_recurrent.log
xz -9 $OUT/fused_recurrent.json
cd /tmp/ab65 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz check.log && rm check.log
