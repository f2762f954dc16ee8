#!/bin/bash
# Stop 111's fifth call: chunk version 106b (branch v106-copies-apart at 106b; A/B build v106b-ab,
# ab-build-v106b.diff: FLA_AB_OLD=1 runs main's version 105: the stage's copies by all four loads warps).
# 106b: the copies by the loads' last three warps in loops unrolled with compile-time trip counts (106's
# rolled loops doubled the loads' instructions), the first warp making the decays alone. Steps: battery of
# 106b, A/B 106b against 105, racecheck, issue 4's table. Lands in $OUT/v106b.tar.xz.
set -u
source scripts/device-call.sh build-part-s111/v106b v106b p/ab-build-v106b.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 80 $fb check --no-long --filter "$F" --out $R/check-106b.json > $R/check-106b.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check-106b.log | tail -1; grep -E "FAIL|failed" $R/check-106b.log | head -20
xz -T0 -f $R/check-106b.json; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 130 bash scripts/ab-rounds.sh $fb $fb $R/ab-106b-105 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-106b-105-out.txt 2>&1
echo "ab 106b against 105 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-106b-105-out.txt; pack; date
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 60 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/racecheck.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/racecheck.json; pack; date
if grep -qE "faster" $R/ab-106b-105-out.txt; then
  timeout 140 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
    --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
  tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
fi
