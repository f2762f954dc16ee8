#!/bin/bash
# Stop 118's device call, prepared and not run: every request of the session found no machine (15 failed
# starts spent its device time). It replaces stop 117's two prepared calls (the probe on 114's landing build,
# then the fallback): one call settles both. Racecheck's report on version 114 (stop 117 call 2: the prepared
# fused forward's read-back of its staging tile, fused_roles.cuh:119, against the loads' cp.async into the
# same stage, at T = 1100 only, every reuse of a stage) is tested by a probe, and version 114's fallback
# (branch v114-fallback 8b6db5a: gla's and rwkv6's prepared forward store from the registers after handing
# the stage back, as 105; simple_gla's passes as 114, still through the staging tile) is checked and timed.
# The fallback, not 114, because its prepared forward gained nothing from the staging (stop 117 call 2: gla
# and rwkv6 0.97-1.01x of the record).
# To run: check out branch land-118 (main with v114-fallback merged; the probe's mode 2 calls 114's
# store_outputs, whose signature main's lacks), copy this folder's files to p/ with h100/stop111/call3-v105b/
# check-105.json.xz and ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry
# build-part-s117/v114-fallback (git-ignored: rebuild it from land-118 if gone), `bash p/device-script.sh`.
# Steps: (1) racecheck-probe.cu under racecheck (the stage ring on the kernels' own barrier and cp.async
# helpers, nothing racing): the outputs read the stage last (0), overwrite then read (1), or call
# store_outputs itself (2); the stage filled by cp.async (0) or plain stores (1). (2) racecheck of the
# fallback on every T = 1100 case of gla, rwkv6 and simple_gla (stages reused). (3) the battery against
# 105's. (4) issue 4's table. (5) synccheck of (2)'s cases.
# Prediction (before the run): the probe flagged with cp.async in modes 0-2 and clean with plain stores
# (racecheck's model: then simple_gla's T = 1100 cases are flagged too, and 114 or its fallback lands as
# measured); gla's and rwkv6's cases clean; the battery bit for bit 105's; the table as stop 117 call 2
# (10 of 30). A clean probe with simple_gla flagged would make the staging's hand-back suspect everywhere:
# then nothing lands and 105's stores go back into simple_gla's passes too.
set -u
source scripts/device-call.sh build-part-s117/v114-fallback v114f p/racecheck-probe.cu || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
${CUDA_HOME:-/usr/local/cuda}/bin/nvcc -arch=sm_90a -DFLA_BENCH_SM90A -std=c++20 -O3 -I. -o /tmp/probe \
  p/racecheck-probe.cu > $R/probe-build.log 2>&1
echo "probe build rc $?"
for mode in "0 0" "1 0" "2 0" "0 1" "1 1" "2 1"; do
  timeout 30 compute-sanitizer --tool racecheck --print-limit 4 /tmp/probe $mode > "$R/probe-${mode/ /-}.log" 2>&1
  echo "probe $mode rc $?"; grep -E "^probe|SUMMARY" "$R/probe-${mode/ /-}.log" | head -3
done; pack; date
S='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64'
# TOOL SECONDS: compute-sanitizer's TOOL over the T = 1100 cases, its summary and any race's cases
sanitize() {
  timeout $2 compute-sanitizer --tool $1 --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$1.json > $R/$1.log 2>&1
  echo "$1 rc $?"; grep -E "cases:|SUMMARY" $R/$1.log | head -3; grep -c "Race reported" $R/$1.log
  grep -B1 "Race reported" $R/$1.log | grep -E "^[a-z]+/" | head; rm -f $R/$1.json; pack; date
}
sanitize racecheck 170
timeout 60 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p/check-105.json.xz $R/check.json.xz > $R/check-errors-vs-105.txt 2>&1
head -6 $R/check-errors-vs-105.txt; pack; date
timeout 130 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json
python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
grep -E "met:" $R/issue4-chunk-peer-table.md; pack; date
sanitize synccheck 80
