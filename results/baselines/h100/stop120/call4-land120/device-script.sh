#!/bin/bash
# Stop 120's fourth call: chunk version 117's landing build (branch land-120 c32dc38: version 116's staged dots'
# rows, the launches as 115's; no switch) against main's 115 (0c0cdf1), both slim builds, one machine.
# Prediction (before any run; from call 3's configuration C, the same kernels and launches): bit for bit 115;
# racecheck and synccheck clean on simple_gla's T = 1100 cases; A/B (3 rounds, C = 64) simple_gla's fwd+bwd
# 0.95-0.96 at 8,1024,8,64, 0.96-0.98 at 4,4096,16,64, 0.98-1.01 at the K = 128 shapes, the forwards "same";
# issue 4's table 10 of 30 (the 8,1024,8,64 fwd+bwd still short of 0.106 ms, at about 0.108).
# To run: copy this folder's files to p4/ with h100/stop119/call1-land118/check.json.xz and
# ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry build-part-s120/v117 and
# build-part-s120/main115, `bash p4/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v117 v117 || exit 2
base=/tmp/fb-main115
xz -dc build-part-s120/main115/fla-bench.xz > $base && chmod +x $base || echo "no main115 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; date
if grep -q H100 $R/gpu.txt; then  # issue 4's table is H100's
  timeout 90 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
  tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json
  python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p4/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
  grep -E "simple_gla|met:" $R/issue4-chunk-peer-table.md; pack; date
fi
S='^simple_gla/chunk/(fwd|fwdbwd)/bf16'
timeout 150 scripts/ab-rounds.sh $base $fb $R/ab-main115-vs-v117 3 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -16 $R/ab.log
xz -T0 -f $R/ab-main115-vs-v117/*.json; pack; date
timeout 60 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p4/check.json.xz $R/check.json.xz > $R/check-errors-vs-115.txt 2>&1
head -4 $R/check-errors-vs-115.txt; pack; date
sanitize() {
  local log=$R/$1-${2//|/-}.log
  timeout $3 compute-sanitizer --tool $1 --print-limit 10 $fb check --no-isolate --no-long \
    --filter "^[a-z]+/($2)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64" --out $R/$1.json > $log 2>&1
  echo "$1 $2 rc $?"; grep -E "cases:|SUMMARY" $log | head -3; grep -c "Race reported" $log
  rm -f $R/$1.json; pack; date
}
sanitize racecheck simple_gla 100
sanitize synccheck simple_gla 40
timeout 40 $fb profile --filter "$S"'/(B8-T1024|B4-T4096-H16-K128)' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile.json > $R/profile.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile.json
python3 scripts/timeline.py $R/profile.json.xz > $R/timeline.txt 2>&1; grep -E "launches|kernel<|grads" $R/timeline.txt | head -24
pack; date
