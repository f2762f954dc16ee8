#!/bin/bash
# Stop 112's second device call: chunk version 109 (107's TMA loads, and the loads make the state's decayed
# values in each chunk's preparation, into the stage) on the A/B build v109-ab (ab-build-v109.diff:
# FLA_AB_OLD=1 runs 105's loads, FLA_AB_MID=1 107's, the state making the values in both; no switch: 109).
# Steps: battery of 109, A/B against 105, racecheck, A/B against 107, issue 4's table, ncu of the forward
# at 4,4096,16,64. Lands in $OUT/v109.tar.xz.
set -u
source scripts/device-call.sh build-part-s112/v109 v109 p/ab-build-v109.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 40 $fb check --no-long --filter "$F" --out $R/check-109.json > $R/check-109.log 2>&1
echo "check 109 rc $?"; grep -E "cases:" $R/check-109.log | tail -1; grep -E "FAIL|failed|rror" $R/check-109.log | head
xz -T0 -f $R/check-109.json; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 60 bash scripts/ab-rounds.sh $fb $fb $R/ab-109-105 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-109-105-out.txt 2>&1
echo "ab 109 against 105 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-109-105-out.txt; pack
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 40 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/racecheck.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/racecheck.json; pack
BASE_ENV='FLA_AB_MID=1' NEW_ENV='FLA_AB_NONE=1' timeout 60 bash scripts/ab-rounds.sh $fb $fb $R/ab-109-107 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-109-107-out.txt 2>&1
echo "ab 109 against 107 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-109-107-out.txt; pack; date
timeout 80 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
