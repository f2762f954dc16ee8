#!/bin/bash
# Stop 108's call: chunk versions 99 and 100 against 98 in one
# binary (branch v100-ab, ab-build-v100.diff; FLA_AB_STATE=98 runs version 98's state order and scores as
# on main at e807c7e, =99 99's state with 98's scores, unset 100). 99: simple_gla's fused forward's state
# warpgroup makes chunk n + 1's v e^{to end} parts while chunk n's update is on the tensor cores; 100: the
# outputs' decayed scores in one instance a warp. Steps, the deciding ones first: the battery of simple_gla's
# bf16 chunk cases at C = 64 in modes 100 and 98 (bit for bit expected), the A/B 100 against 98, racecheck
# and synccheck (100), issue 4's table (100), the per-kernel profile of simple_gla's fwd+bwd (100), ncu of the
# forward at 2,16384,16,128 (100). Lands in $OUT/v100.tar.xz.
set -u
source scripts/device-call.sh build-part-s108/v100ab v100 p/ab-build-v100.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64'
for v in 100 98; do
  if [ $v = 98 ]; then export FLA_AB_STATE=98; else unset FLA_AB_STATE; fi
  timeout 60 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; xz -T0 -f $R/check-$v.json
done
unset FLA_AB_STATE
python3 scripts/check-error-compare.py $R/check-98.json.xz $R/check-100.json.xz > $R/check-errors-100-98.txt 2>&1
sed -n 3p $R/check-errors-100-98.txt; pack
A='--preset peer --filter ^simple_gla/chunk/(fwd|fwdbwd)/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
for base in 98; do
  BASE_ENV="FLA_AB_STATE=$base" NEW_ENV='FLA_AB_STATE=100' timeout 100 bash scripts/ab-rounds.sh $fb $fb \
    $R/ab-100-$base 2 $A > $R/ab-100-$base-out.txt 2>&1
  echo "ab 100 against $base rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-100-$base-out.txt; pack; date
done
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
timeout 200 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
timeout 60 $fb --filter '^simple_gla/chunk/fwdbwd/bf16/' --preset peer --axis C=64 --min-time 0.1 \
  --min-samples 5 --out $R/profile-100.json profile > $R/profile-100.log 2>&1; echo "profile rc $?"
xz -T0 -f $R/profile-100.json; pack
timeout 100 ncu --set full --import-source yes -k "regex:scalar_fused_forward_kernel" --launch-count 1 \
  -o /tmp/f100 $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 \
  --axis V=128 --axis C=64 --profile-once --no-check --out /tmp/j100.json > $R/ncu-100.log 2>&1
echo "ncu rc $?"; ncu --import /tmp/f100.ncu-rep --page details > $R/details-100.txt 2>&1
ncu --import /tmp/f100.ncu-rep --page source --csv --print-source sass > $R/source-100.csv 2>&1
gzip -f $R/source-100.csv; grep -E "Duration|Executed Ipc A|Registers Per" $R/details-100.txt | head -4; pack; date
