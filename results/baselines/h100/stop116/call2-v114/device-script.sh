#!/bin/bash
# Stop 116's second device call: chunk version 114's A/B build v114 (branch v114-fewer-wavefronts from main,
# ab-build-v114.diff; FLA_AB a mask: 1 the state's update as one m64n64 product of both decayed values'
# parts at Vs = 32, where two m64n32 read k^T twice; 4 S published by stmatrix; 8 the outputs stored through
# the stage's q tile, 16 bytes a thread), bundled into build-part-s116/v114. Why: call 1's ablations (no role's
# work is free: each skip moves the forward by 3-15%, and at 4,4096,16,64 the skips add up to the 127 mask's
# 0.36x), and the shared-memory wavefronts of v112's ncu (~1,160 a chunk; the state's products 320).
# Prediction (written before the run): 13 against 0, the forward at Vs = 32 0.88-0.93x, fwd+bwd 0.9-0.95x;
# 1 alone 0.97x at K = 64, 0.94x at 2,16384,16,128; 4 alone 0.96-0.98x; 8 alone 0.94-0.97x. "Same" refutes.
# 4 and 8 move data only: bit for bit the base; 1 changes the state's rounding: errors as 105's.
set -u
source scripts/device-call.sh build-part-s116/v114 v114 p/ab-build-v114.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB=0' NEW_ENV='FLA_AB=13' timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-13 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-13-out.txt 2>&1
echo "ab 13 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-13-out.txt; pack; date
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/'
for m in 13 0; do
  FLA_AB=$m timeout 60 $fb check --no-long --filter "$F" --out $R/check-$m.json > $R/check-$m.log 2>&1
  echo "check $m rc $?"; grep -E "cases:" $R/check-$m.log | tail -1; grep -E "FAIL|failed|rror" $R/check-$m.log | head -5
  xz -T0 -f $R/check-$m.json
done
python3 scripts/check-error-compare.py p/check-105.json.xz $R/check-0.json.xz > $R/check-errors-0-vs-105.txt 2>&1
python3 scripts/check-error-compare.py $R/check-0.json.xz $R/check-13.json.xz > $R/check-errors-13-vs-0.txt 2>&1
head -6 $R/check-errors-0-vs-105.txt $R/check-errors-13-vs-0.txt; pack; date
S='^simple_gla/chunk/fwd/bf16/(B8-T1024|B4-T4096-H16-K64|B2-T16384|B4-T4096-H16-K128)'
for m in 1 8 4; do
  BASE_ENV='FLA_AB=0' NEW_ENV="FLA_AB=$m" timeout 30 bash scripts/ab-rounds.sh $fb $fb $R/ab-$m 1 \
    $A --filter "$S" > $R/ab-$m-out.txt 2>&1
  echo "ab $m rc $?"; grep -E "^simple_gla" $R/ab-$m-out.txt | awk '{print $1, $2, $3}'; pack
done; date
S2='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  FLA_AB=13 timeout 60 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long \
    --filter "$S2" --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
