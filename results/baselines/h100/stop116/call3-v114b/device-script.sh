#!/bin/bash
# Stop 116's third device call: chunk version 114's landing form (branch v114-fewer-wavefronts 3cc2ad5: the
# fused forwards' outputs stored through the stage's consumed q tile, stmatrix then 16-byte rows, and S
# published by stmatrix, in simple_gla's one-kernel forward and backward passes and in gla's and rwkv6's
# prepared fused forward) on its A/B build v114b (ab-build-v114b.diff: FLA_AB_OLD=1 takes back 105's 4-byte
# stores for both), bundled into build-part-s116/v114b. Steps (the checks first: the session's device time was
# short): the bf16 chunk battery both ways (bit for bit expected: the data moves, not the arithmetic) and against stop
# 111's committed 105 for simple_gla; A/B 114 against OLD for the three ops;
# issue 4's table (no switch); racecheck and synccheck of gla and rwkv6 (simple_gla's
# ran clean with these moves in call 2).
# Prediction (before the run): simple_gla as call 2's bits 4 and 8 (forward at Vs = 32 0.87-0.94x, fwd+bwd
# 0.95-0.97x); gla and rwkv6, whose outputs' chain also ends in the stores, the forward 0.93-0.97x, their
# fwd+bwd (other kernels) 0.98-1.0x.
set -u
source scripts/device-call.sh build-part-s116/v114b v114b p/ab-build-v114b.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
F='/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/'
for v in 114 old; do
  if [ $v = old ]; then export FLA_AB_OLD=1; else unset FLA_AB_OLD; fi
  timeout 60 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; grep -E "FAIL|failed" $R/check-$v.log | head -5
  xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OLD
python3 scripts/check-error-compare.py $R/check-old.json.xz $R/check-114.json.xz > $R/check-errors-114-old.txt 2>&1
python3 scripts/check-error-compare.py p/check-105.json.xz $R/check-114.json.xz --filter '/simple_gla/' \
  > $R/check-errors-114-vs-stop111-105.txt 2>&1
head -5 $R/check-errors-114-old.txt $R/check-errors-114-vs-stop111-105.txt; pack; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 170 bash scripts/ab-rounds.sh $fb $fb $R/ab-114-old 2 \
  $A --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-114-old-out.txt 2>&1
echo "ab 114 against OLD rc $?"; grep -E "^[a-z_0-9]+/chunk|cases over|geomean" $R/ab-114-old-out.txt; pack; date
timeout 120 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json
python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
tail -1 $R/issue4-chunk-peer-table.md; pack; date
S='^[a-z]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
