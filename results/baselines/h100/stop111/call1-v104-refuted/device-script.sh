#!/bin/bash
# Stop 111's first call: chunk version 104 (branch v104-scan-beside; A/B build v104-ab, ab-build-v104.diff:
# FLA_AB_OLD=1 runs main's version 103: the passes at 128 registers, dq on the call's stream, the 512-thread
# gate scan after dk's pass). 104: the gate scan in 128-thread blocks of 64 registers, the passes with two
# outputs warpgroups capped at 112 registers so that a scan block fits beside one, dq and dk at high priority
# and the scan after them on a high-priority side, beside dv's pass. Steps: battery both ways, A/B 104
# against 103, profile both ways, racecheck, issue 4's table. Lands in $OUT/v104.tar.xz.
set -u
source scripts/device-call.sh build-part-s111/v104 v104 p/ab-build-v104.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
for v in 104 103; do
  if [ $v = 103 ]; then export FLA_AB_OLD=1; else unset FLA_AB_OLD; fi
  timeout 80 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; grep -E "FAIL|failed" $R/check-$v.log | head -20
  xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OLD
python3 scripts/check-error-compare.py $R/check-103.json.xz $R/check-104.json.xz > $R/check-errors-104-103.txt 2>&1
head -8 $R/check-errors-104-103.txt; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 130 bash scripts/ab-rounds.sh $fb $fb $R/ab-104-103 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-104-103-out.txt 2>&1
echo "ab 104 against 103 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-104-103-out.txt; pack; date
for v in 104 103; do
  if [ $v = 103 ]; then export FLA_AB_OLD=1; else unset FLA_AB_OLD; fi
  timeout 45 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16' --preset peer --axis C=64 --min-time 0.1 \
    --out $R/profile-$v.json > $R/profile-$v.log 2>&1; echo "profile $v rc $?"
  grep -E "^simple_gla|%" $R/profile-$v.log | head -40; xz -T0 -f $R/profile-$v.json; pack
done; unset FLA_AB_OLD; date
S='^[a-z]+/simple_gla/chunk/fwdbwd/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 60 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/racecheck.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/racecheck.json; pack; date
timeout 140 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
