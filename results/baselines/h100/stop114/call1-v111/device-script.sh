#!/bin/bash
# Stop 114's first device call: chunk version 111 (simple_gla's fused passes at 32 values a block with the
# state's work split over two warpgroups by value columns, 16 each; 640 threads, setmaxnreg: loads 80, state
# 72, outputs 128) on the A/B build v111 (ab-build-v111.diff: FLA_AB_OLD=1 runs one state warpgroup, as 105,
# with the decayed values' new conflict-free piece order in both). Steps, the most needed first: the wgmma
# product tests (m64n16k16 new); simple_gla's bf16 chunk battery and its errors against stop 111's committed
# 105; the A/B; issue 4's simple_gla rows; racecheck and synccheck; ncu of the forward at 4,4096,16,64.
set -u
source scripts/device-call.sh build-part-s114/v111 v111 p/ab-build-v111.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
timeout 60 build-part-s114/v111/flabench_wgmma_tests > $R/wgmma-tests.log 2>&1; echo "wgmma tests rc $?"
grep -E "PASSED|FAILED" $R/wgmma-tests.log | head -8; pack
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/'
timeout 60 $fb check --no-long --filter "$F" --out $R/check-111.json > $R/check-111.log 2>&1
echo "check 111 rc $?"; grep -E "cases:" $R/check-111.log | tail -1; grep -E "FAIL|failed|rror" $R/check-111.log | head
xz -T0 -f $R/check-111.json
python3 scripts/check-error-compare.py p/check-105-call8.json.xz $R/check-111.json.xz > $R/check-errors-111-vs-stop111-105.txt 2>&1
head -8 $R/check-errors-111-vs-stop111-105.txt; pack; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-111-old 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-111-old-out.txt 2>&1
echo "ab 111 against OLD rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-111-old-out.txt; pack; date
timeout 60 $fb --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-simple-gla.json > $R/issue4-simple-gla.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-simple-gla.log; xz -T0 -f $R/issue4-simple-gla.json; pack; date
S='^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
timeout 60 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 \
  -o /tmp/ncu111 $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 \
  --axis K=64 --axis V=64 --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -2 $R/ncu.log
ncu --import /tmp/ncu111.ncu-rep --page source --csv --print-source sass > $R/source-fwd.csv 2>&1; gzip -9f $R/source-fwd.csv
ncu --import /tmp/ncu111.ncu-rep --page details > $R/details.txt 2>&1; xz -T0 -f $R/details.txt; pack; date
