#!/bin/bash
# Stop 120's seventh call: chunk version 118 (branch v118-conflict-free 1cb3083, landing build, no switch)
# against main's 117 (c32dc38), both slim builds, one machine. 118: at 32 values a block the state's making
# of the decayed values reads v's pieces and writes their parts with each quarter warp on two rows four apart
# (call 5's ncu: 48% of that code's shared wavefronts excess, two-way conflicts, the making 12% of the
# forward's stall samples at 2,16384,16,128); the outputs' stores keep their order, now from the same helper.
# Prediction (before any run; kernels/notes/chunk.md, version 118): bit for bit 117; the making's excess
# wavefronts gone in ncu; A/B (3 rounds, C = 64) the forwards at 32 values a block (8,1024,8,64,
# 4,4096,16,64, 2,16384,16,128) 0.97-0.99 and their fwd+bwd 0.98-1.00, 4,4096,16,128 "same"; the table 10 of
# 30 if it lands.
# To run: copy this folder's files to p7/ with h100/stop119/call1-land118/check.json.xz and
# ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry build-part-s120/v118 and
# build-part-s120/v117, `bash p7/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v118 v118 || exit 2
base=/tmp/fb-main117
xz -dc build-part-s120/v117/fla-bench.xz > $base && chmod +x $base || echo "no main117 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; date
S='^simple_gla/chunk/(fwd|fwdbwd)/bf16'
timeout 150 scripts/ab-rounds.sh $base $fb $R/ab-main117-vs-v118 3 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -16 $R/ab.log
xz -T0 -f $R/ab-main117-vs-v118/*.json; pack; date
timeout 60 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p7/check.json.xz $R/check.json.xz > $R/check-errors-vs-115.txt 2>&1
head -4 $R/check-errors-vs-115.txt; pack; date
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64' --out $R/rc.json > $R/racecheck-simple_gla.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck-simple_gla.log | head -3; rm -f $R/rc.json; pack
timeout 60 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 -o /tmp/fwd118 \
  $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/fwd118.ncu-rep --page source --csv --print-source sass > $R/fwd-2-16384-source-0.csv 2>&1
gzip -9f $R/fwd-2-16384-source-0.csv
ncu --import /tmp/fwd118.ncu-rep --page details > $R/fwd-2-16384-details.txt 2>&1; xz -T0 -f $R/fwd-2-16384-details.txt
pack; date
if grep -q H100 $R/gpu.txt; then  # issue 4's table is H100's
  timeout 90 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
  xz -T0 -f $R/issue4-chunk.json
  python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p7/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
  grep -E "simple_gla|met:" $R/issue4-chunk-peer-table.md; pack; date
fi
