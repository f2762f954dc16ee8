#!/usr/bin/env bash
# stop 57, fused v62: the saving forward's parts with nothing to store (checkpoint_every) run one scan loop without the state's copy; new = v62, base = v60 (f4c3ef4)
R=$PWD; B=/tmp/b70; for x in base new; do mkdir -p $B/$x; cp -r build-part/lib $B/$x/; done
xz -dc build-part/fla-bench-final.xz > $B/base/fla-bench; xz -dc build-part/fla-bench-v62.xz > $B/new/fla-bench; chmod +x $B/*/fla-bench
cd $OUT
timeout 100 $B/new/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; rc=$?; echo "check rc $rc"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
if [ $rc -ne 0 ]; then tar cJf logs.tar.xz check.log; exit 1; fi
bash $R/scripts/ab-rounds.sh $B/base/fla-bench $B/new/fla-bench /tmp/ab70 2 --preset peer --filter '^((rwkv7|gla|rwkv6|simple_gla)/fused_recurrent/fwdbwd|rwkv7/fused_recurrent/fwd)/bf16' --no-check --min-time 0.2 --min-samples 5 > $OUT/ab-vs-v60.txt 2>&1
grep -A28 '^case' $OUT/ab-vs-v60.txt | head -32
python3 $R/build-part/medians.py b1=/tmp/ab70/r1-base.json n1=/tmp/ab70/r1-new.json b2=/tmp/ab70/r2-base.json n2=/tmp/ab70/r2-new.json 2>/dev/null > $OUT/medians.txt; grep rwkv7 $OUT/medians.txt
cd /tmp/ab70 && tar cJf $OUT/ab-runs.tar.xz r*.json r*.log
cd $OUT && tar cJf logs.tar.xz check.log && rm check.log
