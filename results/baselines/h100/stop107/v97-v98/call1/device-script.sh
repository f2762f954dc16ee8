#!/bin/bash
# Stop 107's first call: chunk version 97 (simple_gla's bf16 fused forward at 32 values a block with two
# outputs warpgroups taking the chunks in turn, each with its own state buffer, the two buffers side by side
# in one 64-column panel). Carrying build-part-s107/v97ab: branch v97-ab (FLA_AB_OUTPUT_GROUPS=1: one outputs
# warpgroup, main's version 96). Steps: the wgmma layer's GPU test (the new form: an MN-major B 32 wide from a
# panel's second half); the battery of simple_gla's bf16 chunk cases at C = 64, 97 against 96 (bit for bit
# expected); racecheck and synccheck over them; the A/B of simple_gla's bf16 fwd and fwd+bwd at the peer shapes
# (2 rounds); issue 4's table from 97's build. Lands in $OUT/v97.tar.xz.
set -u
source scripts/device-call.sh build-part-s107/v97ab v97 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 60 build-part-s107/v97ab/flabench_wgmma_tests > $R/wgmma-tests.log 2>&1; echo "wgmma tests rc $?"
grep -E "PASSED|FAILED|from32" $R/wgmma-tests.log | head -8
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64'
for v in 97 96; do
  if [ $v = 96 ]; then export FLA_AB_OUTPUT_GROUPS=1; else unset FLA_AB_OUTPUT_GROUPS; fi
  timeout 60 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OUTPUT_GROUPS
python3 scripts/check-error-compare.py $R/check-96.json.xz $R/check-97.json.xz > $R/check-errors-97-96.txt 2>&1
sed -n 1,4p $R/check-errors-97-96.txt; pack
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
A='--preset peer --filter ^simple_gla/chunk/(fwd|fwdbwd)/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OUTPUT_GROUPS=1' NEW_ENV='FLA_AB_OUTPUT_GROUPS=0' timeout 100 bash scripts/ab-rounds.sh $fb $fb \
  $R/ab-97-96 2 $A > $R/ab-97-96-out.txt 2>&1
echo "ab 97 against 96 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-97-96-out.txt; pack; date
timeout 200 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
