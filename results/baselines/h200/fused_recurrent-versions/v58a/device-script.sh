#!/usr/bin/env bash
# stop 56, fused v58: rwkv7 fused_recurrent's bf16 backward in chunk form (new) against HEAD d1313c6 (base)
R=$PWD; B=/tmp/b61; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-new.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v58.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 100 $B/new/fla-bench check --filter rwkv7 --out $OUT/check-rwkv7.json > $OUT/check-rwkv7.log 2>&1; echo "check rc $?"; tail -2 $OUT/check-rwkv7.log | head -1; xz -9 $OUT/check-rwkv7.json
timeout 100 compute-sanitizer --tool memcheck $B/new/fla-bench --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=64,128 --profile-once --no-check --out /tmp/j.json > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY" $OUT/memcheck.log | sort | uniq -c
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab61 2 --preset peer --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v56.txt 2>&1
grep -A12 '^case' $OUT/ab-vs-v56.txt
python3 $R/build-part/medians.py b1=/tmp/ab61/r1-base.json n1=/tmp/ab61/r1-new.json b2=/tmp/ab61/r2-base.json n2=/tmp/ab61/r2-new.json 2>/dev/null > $OUT/medians.txt; cat $OUT/medians.txt
timeout 90 $B/new/fla-bench profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --preset peer --min-time 0.1 --min-samples 3 --out $OUT/profile.json > $OUT/profile.log 2>&1; xz -9 $OUT/profile.json; grep -E "^rwkv7|%" $OUT/profile.log | head -60
timeout 120 $B/new/fla-bench --filter '^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/(fp16|fp32)' --preset peer --axis C=32 --no-check --min-time 0.1 --min-samples 3 --out $OUT/dtypes.json > $OUT/dtypes.log 2>&1; echo "dtypes rc $?"; xz -9 $OUT/dtypes.json; grep -E "^rwkv7" $OUT/dtypes.log
cd /tmp/ab61 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz memcheck.log check-rwkv7.log && rm memcheck.log check-rwkv7.log
