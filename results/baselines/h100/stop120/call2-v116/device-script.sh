#!/bin/bash
# Stop 120's second call: chunk version 116 (branch v116-dot-rows a0cf93a, landing build, no switch) against
# main's 115 (0c0cdf1), both built with sm_90a code alone and uncompressed device code, on one machine.
# 116: dq's and dk's passes stage their dots' rows with each chunk (beside v's in v's tile) where the block
# fits; dq's and dk's passes at high priority so that the gate scan runs while dv's finish.
# Prediction (before any run; kernels/notes/chunk.md, version 116): bit for bit 115; racecheck and synccheck
# clean on the T = 1100 cases; A/B fwd+bwd at 8,1024,8,64 0.90-0.95, 4,4096,16,64 0.95-0.98, 4,4096,16,128
# and 2,16384,16,128 0.96-0.99; the forwards, gla and rwkv6 "same".
# To run: copy this folder's files to p2/ with h100/stop119/call1-land118/check.json.xz (115's battery) and
# ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry build-part-s120/v116 and
# build-part-s120/main115 (git-ignored: slim builds of a0cf93a and 0c0cdf1, README "device builds"),
# `bash p2/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v116 v116 || exit 2
base=/tmp/fb-main115
xz -dc build-part-s120/main115/fla-bench.xz > $base && chmod +x $base || echo "no main115 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; date
S='^simple_gla/chunk/(fwd|fwdbwd)/bf16'
timeout 150 scripts/ab-rounds.sh $base $fb $R/ab-main115-vs-v116 3 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -16 $R/ab.log
xz -T0 -f $R/ab-main115-vs-v116/*.json; pack; date
timeout 60 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p2/check.json.xz $R/check.json.xz > $R/check-errors-vs-115.txt 2>&1
head -4 $R/check-errors-vs-115.txt; pack; date
for b in main115 v116; do
  bin=$fb; [ $b = main115 ] && bin=$base
  timeout 45 $bin profile --filter "$S"'/(B8-T1024|B4-T4096-H16-K64)' --preset peer --axis C=64 --min-time 0.1 \
    --no-check --out $R/profile-$b.json > $R/profile-$b.log 2>&1
  echo "profile $b rc $?"; xz -T0 -f $R/profile-$b.json
  python3 scripts/timeline.py $R/profile-$b.json.xz > $R/timeline-$b.txt 2>&1; grep -E "launches|kernel<|grads" $R/timeline-$b.txt | head -14; pack
done; date
sanitize() {
  local log=$R/$1-${2//|/-}.log
  timeout $3 compute-sanitizer --tool $1 --print-limit 10 $fb check --no-isolate --no-long \
    --filter "^[a-z]+/($2)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64" --out $R/$1.json > $log 2>&1
  echo "$1 $2 rc $?"; grep -E "cases:|SUMMARY" $log | head -3; grep -c "Race reported" $log
  rm -f $R/$1.json; pack; date
}
sanitize racecheck simple_gla 100
sanitize synccheck simple_gla 40
if grep -q H100 $R/gpu.txt; then  # issue 4's table is H100's
  timeout 90 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
  tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json
  python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p2/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
  grep -E "met:" $R/issue4-chunk-peer-table.md; pack; date
fi
