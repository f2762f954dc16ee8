#!/bin/bash
# Stop 117's fourth device call, prepared and not run: to run only if the probe call (../call1-v114-racecheck/)
# finds racecheck's report on gla's prepared fused forward may be real (the probe clean). Version 114's
# fallback (branch v114-fallback 8b6db5a: the prepared forward stores its outputs from the registers after
# handing the stage back, as 105; simple_gla's passes as 114), bundled into build-part-s117/v114-fallback
# (ignored). ptxas: the prepared forward 116-136 registers, no spills. To run: copy this file to p/ with
# h100/stop111/call3-v105b/check-105.json.xz and ../shared/anchors/peer-fla-h100.md, move results/baselines
# aside, carry build-part-s117/v114-fallback, `bash p/device-script.sh`.
# Steps: racecheck and synccheck on every T = 1100 case of gla, rwkv6 and simple_gla (the cases that reuse
# stages); the battery against 105's; issue 4's table.
# Prediction (before the run): racecheck clean (the prepared forward's stores are 105's again); the battery bit
# for bit; the table as stop 117's call 2 (10 of 30; gla's and rwkv6's forwards within 2% of it).
set -u
source scripts/device-call.sh build-part-s117/v114-fallback v114f || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
S='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64'
for tool in racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; grep -c "Race reported" $R/$tool.log
  rm -f $R/$tool.json; pack
done; date
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
