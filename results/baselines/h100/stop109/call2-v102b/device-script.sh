#!/bin/bash
# Stop 109's second call: chunk version 102, with dk's pass keeping the final state's gradient apart (call 1's
# dg failed at log decays of -40) (simple_gla's bf16 backward as three passes of the fused kernel and
# a gate scan; branch v102-ab, ab-build-v102.diff: FLA_AB_OLD_BACKWARD=1 runs version 101's backward, states
# saved by the forward, the reverse scan and the wgmma gradients kernel). Steps, the deciding ones first:
# the battery of simple_gla's bf16 cases (chunk and fused_recurrent, whose fwd+bwd runs the chunk backward)
# both ways, the A/B 102 against 101 at the peer shapes, a per-kernel profile, racecheck and synccheck,
# issue 4's table. Lands in $OUT/v102b.tar.xz.
set -u
source scripts/device-call.sh build-part-s109/v102ab v102b p/ab-build-v102.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
for v in 102 101; do
  if [ $v = 101 ]; then export FLA_AB_OLD_BACKWARD=1; else unset FLA_AB_OLD_BACKWARD; fi
  timeout 90 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; grep -E "FAIL|failed" $R/check-$v.log | head -20
  xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OLD_BACKWARD
python3 scripts/check-error-compare.py $R/check-101.json.xz $R/check-102.json.xz > $R/check-errors-102-101.txt 2>&1
head -5 $R/check-errors-102-101.txt; pack
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD_BACKWARD=1' NEW_ENV='FLA_AB_NONE=1' timeout 120 bash scripts/ab-rounds.sh $fb $fb $R/ab-102-101 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-102-101-out.txt 2>&1
echo "ab 102 against 101 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-102-101-out.txt; pack; date
BASE_ENV='FLA_AB_OLD_BACKWARD=1' NEW_ENV='FLA_AB_NONE=1' timeout 100 bash scripts/ab-rounds.sh $fb $fb $R/ab-fr-102-101 2 \
  --preset peer --min-time 0.15 --min-samples 5 --no-check --filter '^simple_gla/fused_recurrent/fwdbwd/bf16/' \
  > $R/ab-fr-102-101-out.txt 2>&1
echo "ab fused_recurrent 102 against 101 rc $?"; grep -E "^simple_gla|cases over" $R/ab-fr-102-101-out.txt; pack
timeout 60 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16' --preset peer --axis C=64 --min-time 0.1 \
  --out $R/profile-102.json > $R/profile-102.log 2>&1; echo "profile rc $?"
grep -E "^simple_gla|%" $R/profile-102.log | head -40; xz -T0 -f $R/profile-102.json; pack; date
S='^[a-z]+/simple_gla/chunk/fwdbwd/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
timeout 120 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
