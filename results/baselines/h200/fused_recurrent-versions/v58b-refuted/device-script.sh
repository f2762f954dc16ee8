#!/usr/bin/env bash
# stop 56, fused v58b: the backward's matrices beside the forward's scan, fp16 too (new) against v58a (base)
R=$PWD; B=/tmp/b62; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-v58a.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v58b.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 100 $B/new/fla-bench check --filter rwkv7 --out $OUT/check-rwkv7.json > $OUT/check-rwkv7.log 2>&1; echo "check rc $?"; tail -2 $OUT/check-rwkv7.log | head -1; xz -9 $OUT/check-rwkv7.json
timeout 100 compute-sanitizer --tool memcheck $B/new/fla-bench --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)' --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=64,128 --profile-once --no-check --out /tmp/j.json > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY" $OUT/memcheck.log | sort | uniq -c
timeout 60 compute-sanitizer --tool racecheck $B/new/fla-bench --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --axis B=1 --axis T=100 --axis H=2 --axis D=64,128 --profile-once --no-check --out /tmp/j2.json > $OUT/racecheck.log 2>&1; echo "racecheck rc $?"; grep -E "HAZARD|RACECHECK SUMMARY" $OUT/racecheck.log | sort | uniq -c | head
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab62 2 --preset peer --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v58a.txt 2>&1
grep -A12 '^case' $OUT/ab-vs-v58a.txt
python3 $R/build-part/medians.py b1=/tmp/ab62/r1-base.json n1=/tmp/ab62/r1-new.json b2=/tmp/ab62/r2-base.json n2=/tmp/ab62/r2-new.json 2>/dev/null > $OUT/medians.txt; cat $OUT/medians.txt
timeout 90 $B/new/fla-bench profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --preset peer --min-time 0.1 --min-samples 3 --out $OUT/profile.json > $OUT/profile.log 2>&1; echo "profile rc $?"; xz -9 $OUT/profile.json; grep -E "^rwkv7|%" $OUT/profile.log | head -40
cd /tmp/ab62 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz memcheck.log racecheck.log check-rwkv7.log profile.log && rm memcheck.log racecheck.log check-rwkv7.log
