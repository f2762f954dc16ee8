#!/bin/bash
# Stop 115's device call, prepared and never run: none of the session's 21 requests (H100 and H200, two
# hours) got a machine: 15 starts failed, spending its device time, 5 were refused in a cool-down, the last
# for too little time left. It replaces stop 114's prepared third call (its script removed here; its A/B
# build's diff from main moved here, `ab-build-v113-from-main.diff`), reordered so that the ablations come
# first, with more masks and four shapes. Build: branch v111-state-halves at 7e61c7c (chunk version 113's
# A/B build; c734b60 only clang-formats it), bundled into build-part-s114/v113
# (../shared/tools/bundle-for-device; xz the binary). To run: copy this folder's two files to p/, move
# results/baselines aside, carry the bundle, `bash p/device-script.sh`. Steps: the period's sensitivity to
# each role's work first (FLA_ABLATE: a mask of work the roles skip, results wrong, timed against mask 0 on
# the forwards; 1 scan, 2 copies, 4 state make, 8 publish, 16 outputs' decayed scores, 32 stores, 64 state
# update products; 124 = all but the loads' work, 127 = all), the most telling masks first; then A/B 113
# against 112.
# Prediction (stop 114's reading, written before the run): the period is the hand-overs (named-barrier round
# trips, proxy fences), so no single role's skip (1, 2, 4, 8, 16, 32, 64) moves the forward by more than ~5%;
# the state's whole work (76) and the outputs' (48) under ~10%; everything (127) leaves the hand-overs, the
# outputs' products and the gate fetches, 0.7-0.85x. A single skip past 10% refutes it and names the chain.
set -u
source scripts/device-call.sh build-part-s114/v113 v113 p/ab-build-v113-from-main.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
S='^simple_gla/chunk/fwd/bf16/(B8-T1024|B4-T4096-H16-K64|B2-T16384|B4-T4096-H16-K128)'
for m in 127 124 76 48 3 4 64 16 8 32 1 2; do
  BASE_ENV='FLA_ABLATE=0' NEW_ENV="FLA_ABLATE=$m" timeout 25 bash scripts/ab-rounds.sh $fb $fb $R/ablate-$m 1 \
    $A --filter "$S" > $R/ablate-$m-out.txt 2>&1
  echo "ablate $m rc $?"; grep -E "^simple_gla" $R/ablate-$m-out.txt | awk '{print $1, $2, $3, $4, $5}'
  pack
done; date
BASE_ENV='FLA_AB_M112=1' NEW_ENV='FLA_AB_NONE=1' timeout 70 bash scripts/ab-rounds.sh $fb $fb $R/ab-113-112 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-113-112-out.txt 2>&1
echo "ab 113 against 112 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-113-112-out.txt; pack; date
# (the battery, A/B 113 against OLD, issue 4's table, racecheck, synccheck and ncu left out: the session's
# device time was short, ten of its requests found no machine)
