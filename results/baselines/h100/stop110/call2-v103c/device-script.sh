#!/bin/bash
# Stop 110's second call: chunk version 103c (branch v103-staged-rows at 485ab34; A/B build v103-ab,
# ab-build-v103c.diff: FLA_AB_OLD=1 runs main's version 102 simple_gla fused path, FLA_AB_SERIAL=1 103c's
# passes on one stream). 103c: the fused kernel's plan at compile time, the dots' rows from global memory as
# 102, the gate scan a warp a segment (coalesced), the three passes on forked streams. Steps: battery both
# ways, A/B 103c against 102, A/B forked against serial, profile, racecheck and synccheck, issue 4's table.
# Lands in $OUT/v103c.tar.xz.
set -u
source scripts/device-call.sh build-part-s110/v103c v103c p/ab-build-v103c.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
for v in 103 102; do
  if [ $v = 102 ]; then export FLA_AB_OLD=1; else unset FLA_AB_OLD; fi
  timeout 90 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; grep -E "FAIL|failed" $R/check-$v.log | head -20
  xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OLD
python3 scripts/check-error-compare.py $R/check-102.json.xz $R/check-103.json.xz > $R/check-errors-103-102.txt 2>&1
head -8 $R/check-errors-103-102.txt; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 120 bash scripts/ab-rounds.sh $fb $fb $R/ab-103-102 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-103-102-out.txt 2>&1
echo "ab 103c against 102 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-103-102-out.txt; pack; date
BASE_ENV='FLA_AB_SERIAL=1' NEW_ENV='FLA_AB_NONE=1' timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-forked-serial 2 \
  $A --filter '^simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' > $R/ab-forked-serial-out.txt 2>&1
echo "ab forked against serial rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-forked-serial-out.txt; pack; date
timeout 60 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16' --preset peer --axis C=64 --min-time 0.1 \
  --out $R/profile-103.json > $R/profile-103.log 2>&1; echo "profile rc $?"
grep -E "^simple_gla|%" $R/profile-103.log | head -40; xz -T0 -f $R/profile-103.json; pack; date
S='^[a-z]+/simple_gla/chunk/fwdbwd/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
timeout 120 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
