#!/bin/bash
# Stop 112's device call: chunk versions 107 (the fused kernel's q and k by TMA, v by cp.async) and 108 (107,
# and with two outputs warpgroups each makes the state's decayed values of its chunks) on the A/B build
# v108-ab (ab-build-v108.diff: FLA_AB_OLD=1 runs 105's loads, q, k and v by cp.async, the state making the
# decayed values; FLA_AB_MID=1 runs 107: TMA, the state making them; no switch: 108). Steps: battery of 108
# (its errors against stop 111 call 3's 105), A/B 108 against 105, issue 4's table (108), racecheck, A/B
# 108 against 107, ncu of the forward at 4,4096,16,64. Lands in $OUT/v108.tar.xz.
set -u
source scripts/device-call.sh build-part-s112/v108 v108 p/ab-build-v108.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 80 $fb check --no-long --filter "$F" --out $R/check-108.json > $R/check-108.log 2>&1
echo "check 108 rc $?"; grep -E "cases:" $R/check-108.log | tail -1; grep -E "FAIL|failed|rror" $R/check-108.log | head -20
xz -T0 -f $R/check-108.json; pack; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 120 bash scripts/ab-rounds.sh $fb $fb $R/ab-108-105 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-108-105-out.txt 2>&1
echo "ab 108 against 105 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-108-105-out.txt; pack; date
timeout 150 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 50 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/racecheck.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/racecheck.json; pack; date
BASE_ENV='FLA_AB_MID=1' NEW_ENV='FLA_AB_NONE=1' timeout 110 bash scripts/ab-rounds.sh $fb $fb $R/ab-108-107 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-108-107-out.txt 2>&1
echo "ab 108 against 107 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-108-107-out.txt; pack; date
timeout 80 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 \
  -o /tmp/ncu108 $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 \
  --axis K=64 --axis V=64 --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -1 $R/ncu.log
ncu --import /tmp/ncu108.ncu-rep --page source --csv --print-source sass > $R/source-fwd.csv 2>&1; gzip -9f $R/source-fwd.csv
ncu --import /tmp/ncu108.ncu-rep --page details > $R/details.txt 2>&1; grep -E "Duration" $R/details.txt | head -2
xz -T0 -f $R/details.txt; pack; date
