#!/usr/bin/env bash
# stop 57, v61: the local gradients' kernel (512 threads, one block an SM) prefetches the next slice's S and dS; new = v61, base = v60
R=$PWD; B=/tmp/b68; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-v60.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v61.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 100 $B/new/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; rc=$?; echo "check rc $rc"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
if [ $rc -ne 0 ]; then tar cJf logs.tar.xz check.log; exit 1; fi
timeout 120 compute-sanitizer --tool memcheck $B/new/fla-bench --filter '^rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16' --axis C=32 --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=128 --profile-once --no-check --out /tmp/j.json > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY" $OUT/memcheck.log | sort | uniq -c
timeout 150 compute-sanitizer --tool racecheck $B/new/fla-bench --filter '^rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16' --axis C=32 --axis B=1 --axis T=100,4100 --axis H=2 --axis D=128 --profile-once --no-check --out /tmp/j2.json > $OUT/racecheck.log 2>&1; echo "racecheck rc $?"; grep -E "HAZARD|RACECHECK SUMMARY" $OUT/racecheck.log | sort | uniq -c | head
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab68 2 --preset peer --axis C=32 --filter '^rwkv7/(fused_recurrent/(fwd|fwdbwd)|chunk/fwdbwd)/bf16' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v60.txt 2>&1
grep -A18 '^case' $OUT/ab-vs-v60.txt | head -24
python3 $R/build-part/medians.py b1=/tmp/ab68/r1-base.json n1=/tmp/ab68/r1-new.json b2=/tmp/ab68/r2-base.json n2=/tmp/ab68/r2-new.json 2>/dev/null > $OUT/medians.txt; grep fwdbwd $OUT/medians.txt
timeout 100 $B/new/fla-bench profile --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16' --preset peer --axis C=32 --min-time 0.1 --min-samples 3 --out $OUT/profile.json > $OUT/profile.log 2>&1; echo "profile rc $?"; xz -9 $OUT/profile.json
grep -E "local_grads" $OUT/profile.log | head -20
cd /tmp/ab68 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz check.log memcheck.log racecheck.log && rm check.log memcheck.log racecheck.log
