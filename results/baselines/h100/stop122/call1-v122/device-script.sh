#!/bin/bash
# Stop 122's first call: chunk version 122 (branch v122-segments: simple_gla's one-kernel forward at few
# heads over sequence segments, their start states from the scalar-gate scan in runs) against main's 118
# (0820964), slim builds (f9e9a43 and 0820964, 90-real), one machine.
# Predictions (before any run; kernels/notes/chunk.md, version 122): the battery all ok, bit for bit stop
# 119's reference run but at the split shapes (2,4100,2,64 and the new 1,4100,16,64 and 1,1100,2,128,128:
# the same error levels); sanitizers clean; A/B (3 rounds, C = 64): the forward at 1,24576,16,64 0.45-0.57x
# (0.14-0.18 ms against 0.315), its fwd+bwd 0.80-0.91x, every other case "same".
# To run: copy this file to p1/ with h100/stop119/call1-land118/check.json.xz and
# ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry build-part-s122/{v122,base},
# `bash p1/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s122/v122 v122 || exit 2
base=/tmp/fb-main
xz -dc build-part-s122/base/fla-bench.xz > $base && chmod +x $base || echo "no base bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version
date
S='^simple_gla/chunk/(fwd|fwdbwd)/bf16'
timeout 100 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; grep -E "FAILED|failed" $R/check.log | head -5
xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p1/check.json.xz $R/check.json.xz > $R/check-errors-vs-118.txt 2>&1
head -12 $R/check-errors-vs-118.txt; pack; date
timeout 130 scripts/ab-rounds.sh $base $fb $R/ab-main118-vs-v122 3 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -16 $R/ab.log
xz -T0 -f $R/ab-main118-vs-v122/*.json; pack; date
timeout 40 $fb profile --filter "$S"'/B1-T24576' --preset peer --axis C=64 --min-time 0.1 --no-check \
  --out $R/profile.json > $R/profile.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile.json
python3 scripts/timeline.py $R/profile.json.xz > $R/timeline.txt 2>&1; grep -E "launches|kernel<|segment" $R/timeline.txt | head -30
pack; date
for tool in memcheck racecheck synccheck; do
  F='^[a-z_]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/(B1-T1100-H2-K128|B2-T4100-H2-K64).*C64'
  [ $tool = memcheck ] && F='^[a-z_]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/(B1-T1100-H2-K128|B2-T4100-H2-K64|B1-T4100-H16-K64).*C64'
  timeout 70 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$F" \
    --out $R/s.json > $R/$tool-segments.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool-segments.log | head -3; rm -f $R/s.json; pack
done; date
