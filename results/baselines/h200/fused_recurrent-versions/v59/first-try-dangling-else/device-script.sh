#!/usr/bin/env bash
# stop 56, fused v59: the saving forward before rwkv7's chunk-form backward stores the checkpoints at chunk starts only (new) against v58 0208ca4 (base)
R=$PWD; B=/tmp/b64; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-new.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v59.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 200 $B/new/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; echo "check rc $?"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
timeout 60 compute-sanitizer --tool memcheck $B/new/fla-bench --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)' --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=64,128 --profile-once --no-check --out /tmp/j.json > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY" $OUT/memcheck.log | sort | uniq -c
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab64 2 --preset peer --filter '^(rwkv7/fused_recurrent/(fwd|fwdbwd)|(gla|rwkv6)/fused_recurrent/fwd)/bf16' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v58.txt 2>&1
grep -A17 '^case' $OUT/ab-vs-v58.txt
python3 $R/build-part/medians.py b1=/tmp/ab64/r1-base.json n1=/tmp/ab64/r1-new.json b2=/tmp/ab64/r2-base.json n2=/tmp/ab64/r2-new.json 2>/dev/null > $OUT/medians.txt; cat $OUT/medians.txt
timeout 90 $B/new/fla-bench profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --preset peer --min-time 0.05 --min-samples 3 --out $OUT/profile.json > $OUT/profile.log 2>&1; echo "profile rc $?"; xz -9 $OUT/profile.json; grep -E "^rwkv7|fused_recurrent_fwd" $OUT/profile.log
cd /tmp/ab64 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz memcheck.log check.log && rm memcheck.log check.log
