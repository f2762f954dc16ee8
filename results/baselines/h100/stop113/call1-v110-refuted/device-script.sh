#!/bin/bash
# Stop 113's first device call: chunk version 110 (the fused forwards' ring on mbarriers; simple_gla's as deep
# as its block's room allows: six stages at K = 64) on the A/B build v110-ab (ab-build-v110.diff: FLA_AB_OLD=1
# runs the least depth, four stages at Vs = 32, with the loaders' barrier; FLA_AB_MID=1 the deep ring with the
# loaders' barrier; FLA_AB_MAKE=1 the deep ring with the loads making the state's decayed values into each
# stage where the block has room (six stages at K = 64, Vs = 32, five in dk's pass); no switch: the deep
# ring, every loads thread handing the stage over for itself).
# Steps (the most needed first: this session's device time is short): the bf16 chunk battery of gla, rwkv6 and simple_gla (gla's and rwkv6's state and output kernel shares
# the ring) and its errors against stop 111's committed 105; A/B no switch against OLD and MID against OLD;
# racecheck and synccheck; issue 4's table; ncu of the forward at 4,4096,16,64. Lands in $OUT/v110.tar.xz.
set -u
source scripts/device-call.sh build-part-s113/v110 v110 p/ab-build-v110.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
F='/((gla|rwkv6|simple_gla)/chunk|simple_gla/fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 80 $fb check --no-long --filter "$F" --out $R/check-110.json > $R/check-110.log 2>&1
echo "check 110 rc $?"; grep -E "cases:" $R/check-110.log | tail -1; grep -E "FAIL|failed|rror" $R/check-110.log | head
xz -T0 -f $R/check-110.json
python3 scripts/check-error-compare.py p/check-105-call8.json.xz $R/check-110.json.xz > $R/check-errors-110-vs-stop111-105.txt 2>&1
head -8 $R/check-errors-110-vs-stop111-105.txt; pack; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 70 bash scripts/ab-rounds.sh $fb $fb $R/ab-110-old 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-110-old-out.txt 2>&1
echo "ab 110 against OLD rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-110-old-out.txt; pack
BASE_ENV='FLA_AB_MID=1' NEW_ENV='FLA_AB_MAKE=1' timeout 70 bash scripts/ab-rounds.sh $fb $fb $R/ab-make-mid 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-make-mid-out.txt 2>&1
echo "ab MAKE against MID rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-make-mid-out.txt; pack; date
S='^[a-z]+/((simple_gla)/chunk/(fwd|fwdbwd)|(gla|rwkv6)/chunk/fwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
F2='/simple_gla/chunk/(fwd|fwdbwd)/bf16/'
FLA_AB_MAKE=1 timeout 40 $fb check --no-long --filter "$F2" --out $R/check-make.json > $R/check-make.log 2>&1
echo "check make rc $?"; grep -E "cases:" $R/check-make.log | tail -1; grep -E "FAIL|failed|rror" $R/check-make.log | head
xz -T0 -f $R/check-make.json
python3 scripts/check-error-compare.py p/check-105-call8.json.xz $R/check-make.json.xz > $R/check-errors-make-vs-stop111-105.txt 2>&1
head -8 $R/check-errors-make-vs-stop111-105.txt; pack; date
for tool in synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_MID=1' timeout 70 bash scripts/ab-rounds.sh $fb $fb $R/ab-mid-old 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-mid-old-out.txt 2>&1
echo "ab MID against OLD rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-mid-old-out.txt; pack; date
timeout 100 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
timeout 60 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 \
  -o /tmp/ncu110 $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 \
  --axis K=64 --axis V=64 --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -2 $R/ncu.log
ncu --import /tmp/ncu110.ncu-rep --page source --csv --print-source sass > $R/source-fwd.csv 2>&1; gzip -9f $R/source-fwd.csv
ncu --import /tmp/ncu110.ncu-rep --page details > $R/details.txt 2>&1; xz -T0 -f $R/details.txt; pack; date
