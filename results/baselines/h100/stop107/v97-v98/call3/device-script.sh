#!/bin/bash
# Stop 107's third call: chunk version 98 on 97 (simple_gla's bf16 fused forward: the state warpgroup makes
# v e^{to the chunk's end}'s two parts in a tile of its own, so that the stages hold q, k, v and the decays
# only, and two outputs warpgroups take four stages with the loads two chunks ahead). Carrying
# build-part-s107/v98ab: branch v97-ab at 98 with FLA_AB_OUTPUT_GROUPS=1 (one outputs warpgroup, three
# stages, the state making the parts) and =96 (that with the loads making the parts in each stage: version
# 96's order, on main before this stop). Steps: the battery of simple_gla's bf16 chunk cases at C = 64 in the
# three modes (bit for bit expected), racecheck and synccheck, the A/Bs of 98 against 96 and of 98 with one
# outputs warpgroup against 96, issue 4's table, ncu of the kernel at 2,16384,16,128, issue 3's table. Lands
# in $OUT/v98.tar.xz.
set -u
source scripts/device-call.sh build-part-s107/v98ab v98 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 60 build-part-s107/v98ab/flabench_wgmma_tests > $R/wgmma-tests.log 2>&1; echo "wgmma tests rc $?"
grep -E "PASSED|FAILED" $R/wgmma-tests.log | head -3
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64'
for v in 98 98g1 96; do
  case $v in 98) unset FLA_AB_OUTPUT_GROUPS ;; 98g1) export FLA_AB_OUTPUT_GROUPS=1 ;; 96) export FLA_AB_OUTPUT_GROUPS=96 ;; esac
  timeout 60 $fb check --no-long --filter "$F" --out $R/check-$v.json > $R/check-$v.log 2>&1
  echo "check $v rc $?"; grep -E "cases:" $R/check-$v.log | tail -1; xz -T0 -f $R/check-$v.json
done
unset FLA_AB_OUTPUT_GROUPS
for v in 98 98g1; do
  python3 scripts/check-error-compare.py $R/check-96.json.xz $R/check-$v.json.xz > $R/check-errors-$v-96.txt 2>&1
  sed -n 3p $R/check-errors-$v-96.txt
done; pack
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
A='--preset peer --filter ^simple_gla/chunk/(fwd|fwdbwd)/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
for v in 98 98g1; do
  [ $v = 98 ] && n=0 || n=1
  BASE_ENV='FLA_AB_OUTPUT_GROUPS=96' NEW_ENV="FLA_AB_OUTPUT_GROUPS=$n" timeout 100 bash scripts/ab-rounds.sh $fb $fb \
    $R/ab-$v-96 2 $A > $R/ab-$v-96-out.txt 2>&1
  echo "ab $v against 96 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-$v-96-out.txt; pack; date
done
timeout 200 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
timeout 100 ncu --set full --import-source yes -k "regex:scalar_fused_forward_kernel" --launch-count 1 \
  -o /tmp/f98 $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 \
  --axis V=128 --axis C=64 --profile-once --no-check --out /tmp/j98.json > $R/ncu-98.log 2>&1
echo "ncu rc $?"; ncu --import /tmp/f98.ncu-rep --page details > $R/details-98.txt 2>&1
ncu --import /tmp/f98.ncu-rep --page source --csv --print-source sass > $R/source-98.csv 2>&1; gzip -f $R/source-98.csv
grep -E "Duration|Executed Ipc A|Registers Per" $R/details-98.txt | head -4; pack
# issue 3's table (fused_recurrent; gla's, rwkv6's and simple_gla's fwd+bwd take the chunk form's backward,
# versions 93-96 since stop 100's run)
timeout 150 $fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer \
  --min-time 0.2 --min-samples 5 --out $R/issue3-fused.json > $R/issue3-fused.log 2>&1; echo "issue3 rc $?"
tail -1 $R/issue3-fused.log; xz -T0 -f $R/issue3-fused.json; pack; date
