#!/bin/bash
# Stop 111's fourth call: chunk version 106 (branch v106-copies-apart; A/B build v106-ab, ab-build-v106.diff:
# FLA_AB_OLD=1 runs main's version 105: the stage's copies by all four loads warps). 106: the copies by the
# loads' last three warps, the first making the chunks' decays alone. Steps: battery both ways, A/B 106
# against 105, profile, racecheck and synccheck, issue 4's table, ncu of the forward at 4,4096,16,64. Lands in
# $OUT/v106.tar.xz.
set -u
source scripts/device-call.sh build-part-s111/v106 v106 p/ab-build-v106.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
for v in 106 105; do
  if [ $v = 105 ]; then export FLA_AB_OLD=1; else unset FLA_AB_OLD; fi
  timeout 80 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; grep -E "FAIL|failed" $R/check-$v.log | head -20
  xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OLD
python3 scripts/check-error-compare.py $R/check-105.json.xz $R/check-106.json.xz > $R/check-errors-106-105.txt 2>&1
head -8 $R/check-errors-106-105.txt; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 130 bash scripts/ab-rounds.sh $fb $fb $R/ab-106-105 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-106-105-out.txt 2>&1
echo "ab 106 against 105 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-106-105-out.txt; pack; date
timeout 45 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16' --preset peer --axis C=64 --min-time 0.1 \
  --out $R/profile-106.json > $R/profile-106.log 2>&1; echo "profile 106 rc $?"
grep -E "^simple_gla|%" $R/profile-106.log | head -40; xz -T0 -f $R/profile-106.json; pack; date
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
timeout 140 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
timeout 90 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 \
  -o /tmp/ncu106 $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 \
  --axis K=64 --axis V=64 --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -2 $R/ncu.log
ncu --import /tmp/ncu106.ncu-rep --page source --csv --print-source sass > $R/source-fwd.csv 2>&1; gzip -9f $R/source-fwd.csv
ncu --import /tmp/ncu106.ncu-rep --page details > $R/details.txt 2>&1; xz -T0 -f $R/details.txt; pack; date
