#!/bin/bash
# Stop 119's device call: stop 118's prepared call (h100/stop118-prep/call1-v114-fallback-probe/, now in git
# history only; its probe is racecheck-probe.cu here) with its table cut to C = 64 (the best chunk size in
# every row of the record, by 1.3-3.5x) and an A/B of landing
# builds on the same machine in its place: bundles built with sm_90a code only and uncompressed device code
# (-DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_FLAGS=-compress-mode=none: 17 MB xz'd where the default
# build's was 41 MB), so that land-118 and main (105) travel together and neither carries a run-time switch.
# Steps: (1) racecheck-probe.cu under racecheck, modes as stop 118's; (2) racecheck of land-118 on every
# T = 1100 case of simple_gla, then of gla and rwkv6; (3) the battery against 105's committed one; (4) issue 4's
# table, C = 64, on an H100 only; (5) main (base) against land-118 (new), 2 rounds (3 where no table),
# C = 64, no checks; (6) synccheck of (2)'s.
# Prediction (stop 118's, before any run): the probe flagged with cp.async in modes 0-2 and clean with plain
# stores (racecheck's model: simple_gla's T = 1100 cases flagged too); gla's and rwkv6's cases clean; the
# battery bit for bit 105's; the table 10 of 30 with simple_gla's forward 0.88-0.94x of the record and the
# rest within 1-3%; the A/B: simple_gla's fused forwards faster (0.88-0.94), everything else "same".
set -u
source scripts/device-call.sh build-part-s119/land118-slim land118 p/racecheck-probe.cu || exit 2
base=/tmp/fb-main105
xz -dc build-part-s119/main105-slim/fla-bench.xz > $base && chmod +x $base || echo "no main105 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; date
${CUDA_HOME:-/usr/local/cuda}/bin/nvcc -arch=sm_90a -DFLA_BENCH_SM90A -std=c++20 -O3 -I. -o /tmp/probe \
  p/racecheck-probe.cu > $R/probe-build.log 2>&1
echo "probe build rc $?"
for mode in "0 0" "1 0" "2 0" "0 1" "1 1" "2 1"; do
  timeout 30 compute-sanitizer --tool racecheck --print-limit 4 /tmp/probe $mode > "$R/probe-${mode/ /-}.log" 2>&1
  echo "probe $mode rc $?"; grep -E "^probe|SUMMARY" "$R/probe-${mode/ /-}.log" | head -3
done; pack; date
# TOOL OPS SECONDS: compute-sanitizer's TOOL over the T = 1100 cases of OPS, its summary and any race's cases
sanitize() {
  local log=$R/$1-${2//|/-}.log
  timeout $3 compute-sanitizer --tool $1 --print-limit 10 $fb check --no-isolate --no-long \
    --filter "^[a-z]+/($2)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64" --out $R/$1.json > $log 2>&1
  echo "$1 $2 rc $?"; grep -E "cases:|SUMMARY" $log | head -3; grep -c "Race reported" $log
  grep -B1 "Race reported" $log | grep -E "^[a-z]+/" | head; rm -f $R/$1.json; pack; date
}
# simple_gla's first: its passes keep 114's staging (the pattern in question); gla's and rwkv6's have 105's
sanitize racecheck simple_gla 100
sanitize racecheck 'gla|rwkv6' 70
timeout 60 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p/check-105.json.xz $R/check.json.xz > $R/check-errors-vs-105.txt 2>&1
head -6 $R/check-errors-vs-105.txt; pack; date
F='^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16'
rounds=2
if grep -q H100 $R/gpu.txt; then  # issue 4's table is H100's; on another GPU only the A/B says anything
timeout 90 $fb --filter "$F" --axis C=64 --preset peer --min-time 0.15 --min-samples 5 \
  --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json
python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
grep -E "met:" $R/issue4-chunk-peer-table.md; pack; date
else rounds=3; fi
timeout 200 scripts/ab-rounds.sh $base $fb $R/ab-main105-vs-land118 $rounds --filter "$F" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -40 $R/ab.log
xz -T0 -f $R/ab-main105-vs-land118/*.json; pack; date
sanitize synccheck 'gla|rwkv6|simple_gla' 80
