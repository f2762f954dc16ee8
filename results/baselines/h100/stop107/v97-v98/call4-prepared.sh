#!/bin/bash
# Stop 107's fourth call: version 98 with the loads' decays behind a barrier among the loaders again (call 3's
# racecheck flagged the first loads warp's decays against the outputs' reads: 27 errors, the battery bit for
# bit). Carrying build-part-s107/v98b (branch v97-ab; FLA_AB_OUTPUT_GROUPS=96 runs version 96's order). Steps:
# the battery of simple_gla's bf16 chunk cases at C = 64 against 96's (bit for bit expected), racecheck and
# synccheck over them, the A/B against 96. Lands in $OUT/v98b.tar.xz.
set -u
source scripts/device-call.sh build-part-s107/v98b v98b || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64'
for v in 98 96; do
  if [ $v = 96 ]; then export FLA_AB_OUTPUT_GROUPS=96; else unset FLA_AB_OUTPUT_GROUPS; fi
  timeout 60 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OUTPUT_GROUPS
python3 scripts/check-error-compare.py $R/check-96.json.xz $R/check-98.json.xz > $R/check-errors-98-96.txt 2>&1
sed -n 3p $R/check-errors-98-96.txt; pack
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
A='--preset peer --filter ^simple_gla/chunk/(fwd|fwdbwd)/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OUTPUT_GROUPS=96' NEW_ENV='FLA_AB_OUTPUT_GROUPS=0' timeout 100 bash scripts/ab-rounds.sh $fb $fb \
  $R/ab-98-96 2 $A > $R/ab-98-96-out.txt 2>&1
echo "ab 98 against 96 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-98-96-out.txt; pack; date
