#!/bin/bash
# Stop 122's second call: chunk version 122 (f9e9a43) against main's 118 (0820964) where 122 changed shared
# code: the scan (runs, null initial and saved states) serves gla's, rwkv6's and gsa's chunk variants too.
# Predictions (before the run): their batteries bit for bit between the two builds (the scan's arithmetic is
# unchanged; every call but simple_gla's split forward takes one run from the initial state); A/B of gla's and
# rwkv6's chunk bf16 (2 rounds, C = 64) "same"; issue 4's table on 122's build 11 of 30 (simple_gla's
# forward at 1,24576,16,64 now 0.171 ms against 0.176).
# To run: copy this file to p2/ with ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry
# build-part-s122/{v122,base}, `bash p2/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s122/v122 v122b || exit 2
base=/tmp/fb-main
[ -x $base ] || { xz -dc build-part-s122/base/fla-bench.xz > $base && chmod +x $base; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version
date
F='/(gla|rwkv6)/chunk/|/gsa/chunk/.*/bf16/'
for side in new base; do
  bin=$fb; [ $side = base ] && bin=$base
  timeout 110 $bin check --no-long --filter "$F" --out $R/check-$side.json > $R/check-$side.log 2>&1
  echo "check $side rc $?"; grep -E "cases:" $R/check-$side.log | tail -1; xz -T0 -f $R/check-$side.json
done
python3 scripts/check-error-compare.py $R/check-base.json.xz $R/check-new.json.xz > $R/check-errors-new-vs-base.txt 2>&1
head -8 $R/check-errors-new-vs-base.txt; pack; date
if grep -q H100 $R/gpu.txt; then  # issue 4's table is H100's
  timeout 100 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
  xz -T0 -f $R/issue4-chunk.json
  python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p2/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
  grep -E "simple_gla|met:" $R/issue4-chunk-peer-table.md; pack; date
fi
timeout 120 scripts/ab-rounds.sh $base $fb $R/ab-main118-vs-v122-gla-rwkv6 2 --filter '^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -24 $R/ab.log
xz -T0 -f $R/ab-main118-vs-v122-gla-rwkv6/*.json; pack; date
