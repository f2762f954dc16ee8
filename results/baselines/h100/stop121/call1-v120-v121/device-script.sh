#!/bin/bash
# Stop 121's first call: chunk versions 120 (branch v120-loads-make 554f264) and 121 (branch v121-chain e5f7265, on
# 120), landing builds with no switch, against main's 118 (eea428b), all slim builds, one machine.
# 120: at K = 128 and 32 values a block the loads warpgroup makes the state's decayed values with each chunk,
# into its stage, so that the making is off the state's chain (version 109's move on today's kernel).
# 121: simple_gla's fused backward as one chain of dependent launches on the call's stream (dq's pass, dk's,
# the gate scan, dv's) in place of forked streams.
# Predictions (before any run; kernels/notes/chunk.md, versions 120 and 121): both bit for bit 118;
# racecheck and synccheck clean on simple_gla's T = 1100 cases and
# B2-T130-H16-K128-V128 (the loads' making: K = 128, 32 values a block); A/B 120 against 118 (3 rounds, C = 64): the
# forward at 2,16384,16,128 0.93-0.97, its fwd+bwd 0.97-0.99, the rest "same"; A/B 121 against 120: the
# fwd+bwd at 8,1024,8,64 0.92-0.96, 4,4096,16,64 0.97-0.99, K = 128 0.97-1.00, the forwards "same"; 121's
# timeline at 8,1024,8,64 96-100 us; the table 11 or 12 of 30.
# To run: copy this file to p1/ with h100/stop119/call1-land118/check.json.xz and
# ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry build-part-s121/{v121,v120,main118},
# `bash p1/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s121/v121 v121 || exit 2
b118=/tmp/fb-main118 b120=/tmp/fb-v120
xz -dc build-part-s121/main118/fla-bench.xz > $b118 && chmod +x $b118 || echo "no main118 bundle"
xz -dc build-part-s121/v120/fla-bench.xz > $b120 && chmod +x $b120 || echo "no v120 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $b120 --version; $b118 --version
date
S='^simple_gla/chunk/(fwd|fwdbwd)/bf16'
timeout 100 scripts/ab-rounds.sh $b118 $b120 $R/ab-main118-vs-v120 3 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab-120.log 2>&1; echo "ab 120 rc $?"; tail -16 $R/ab-120.log
xz -T0 -f $R/ab-main118-vs-v120/*.json; pack; date
timeout 100 scripts/ab-rounds.sh $b120 $fb $R/ab-v120-vs-v121 3 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab-121.log 2>&1; echo "ab 121 rc $?"; tail -16 $R/ab-121.log
xz -T0 -f $R/ab-v120-vs-v121/*.json; pack; date
timeout 60 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p1/check.json.xz $R/check.json.xz > $R/check-errors-vs-118.txt 2>&1
head -4 $R/check-errors-vs-118.txt; pack; date
for tool in racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long \
    --filter '^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/(B[0-9]-T1100-|B2-T130-H16-K128-V128).*C64' --out $R/s.json \
    > $R/$tool-simple_gla.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool-simple_gla.log | head -3; rm -f $R/s.json; pack
done; date
if grep -q H100 $R/gpu.txt; then  # issue 4's table is H100's
  timeout 90 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
  xz -T0 -f $R/issue4-chunk.json
  python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p1/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
  grep -E "simple_gla|met:" $R/issue4-chunk-peer-table.md; pack; date
fi
timeout 40 $fb profile --filter "$S"'/(B8-T1024|B4-T4096|B2-T16384)' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile.json > $R/profile.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile.json
python3 scripts/timeline.py $R/profile.json.xz > $R/timeline.txt 2>&1; grep -E "launches|kernel<|grads" $R/timeline.txt | head -40
pack; date
for tool in synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long \
    --filter '^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/(B[0-9]-T1100-|B2-T130-H16-K128-V128).*C64' --out $R/s.json \
    > $R/$tool-simple_gla.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool-simple_gla.log | head -3; rm -f $R/s.json; pack
done; date
