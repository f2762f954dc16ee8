#!/bin/bash
# Stop 108's last call: chunk version 101 against 98 in one binary (branch v101-ab, ab-build-v101.diff;
# FLA_AB_MODE=98 runs version 98 as on main at e807c7e, =1 101's decayed scores with 98's making, unset 101:
# the outputs' decayed scores in one instance a warp and the state's making with its reads issued first, on
# 98's order; 99's look-ahead is refuted by this stop's call v100). Steps, the deciding ones first: the
# battery of simple_gla's bf16 chunk cases at C = 64 in modes 101 and 98 (bit for bit expected), the A/Bs 101
# against 98 and (the forward) 1 against 98, racecheck and synccheck (101), issue 4's table (101).
# Lands in $OUT/v101.tar.xz.
set -u
source scripts/device-call.sh build-part-s108/v101ab v101 p/ab-build-v101.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64'
for v in 101 98; do
  if [ $v = 98 ]; then export FLA_AB_MODE=98; else unset FLA_AB_MODE; fi
  timeout 60 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; xz -T0 -f $R/check-$v.json
done
unset FLA_AB_MODE
python3 scripts/check-error-compare.py $R/check-98.json.xz $R/check-101.json.xz > $R/check-errors-101-98.txt 2>&1
sed -n 3p $R/check-errors-101-98.txt; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_MODE=98' NEW_ENV='FLA_AB_MODE=101' timeout 100 bash scripts/ab-rounds.sh $fb $fb $R/ab-101-98 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-101-98-out.txt 2>&1
echo "ab 101 against 98 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-101-98-out.txt; pack; date
BASE_ENV='FLA_AB_MODE=98' NEW_ENV='FLA_AB_MODE=1' timeout 60 bash scripts/ab-rounds.sh $fb $fb $R/ab-1-98 2 \
  $A --filter '^simple_gla/chunk/fwd/bf16/' > $R/ab-1-98-out.txt 2>&1
echo "ab 1 against 98 rc $?"; grep -E "^simple_gla|cases over" $R/ab-1-98-out.txt; pack; date
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
timeout 120 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
