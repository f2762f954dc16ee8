#!/bin/bash
# Stop 114's third device call, prepared and never run (no machine could be started for the rest of the
# session's device time). To run it: build branch v111-state-halves (its last commit is this A/B build), bundle
# build/fla-bench into build-part-s114/v113 (../shared/tools/bundle-for-device; xz the binary), copy
# h100/stop111/call8-review/check.json.xz to p/check-105-call8.json.xz and this folder's diff to p/, move
# results/baselines aside, carry the
# bundle. The call: chunk version 113 (112 with each loads thread handing the stage over for itself:
# no loaders' barrier, and the first warp, which copies nothing, without the proxy fence) on the A/B build v113
# (ab-build-v113.diff: FLA_AB_OLD=1 105's roles, FLA_AB_MID=1 111's, FLA_AB_M112=1 112's). Steps:
# simple_gla's bf16 chunk battery against stop 111's committed 105; A/B 113 against 112 and against OLD;
# the period's sensitivity to each role's work (FLA_ABLATE: a mask of work the roles skip, results wrong,
# timed against mask 0 on the forwards).
set -u
source scripts/device-call.sh build-part-s114/v113 v113 p/ab-build-v113-from-main.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
F='/simple_gla/chunk/(fwd|fwdbwd)/bf16/'
timeout 60 $fb check --no-long --filter "$F" --out $R/check-113.json > $R/check-113.log 2>&1
echo "check 113 rc $?"; grep -E "cases:" $R/check-113.log | tail -1; grep -E "FAIL|failed|rror" $R/check-113.log | head
xz -T0 -f $R/check-113.json
python3 scripts/check-error-compare.py p/check-105-call8.json.xz $R/check-113.json.xz > $R/check-errors-113-vs-stop111-105.txt 2>&1
head -8 $R/check-errors-113-vs-stop111-105.txt; pack; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_M112=1' NEW_ENV='FLA_AB_NONE=1' timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-113-112 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-113-112-out.txt 2>&1
echo "ab 113 against 112 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-113-112-out.txt; pack; date
for m in 1 2 3 4 76 16 48; do
  BASE_ENV='FLA_ABLATE=0' NEW_ENV="FLA_ABLATE=$m" timeout 40 bash scripts/ab-rounds.sh $fb $fb $R/ablate-$m 1 \
    $A --filter '^simple_gla/chunk/fwd/bf16/' > $R/ablate-$m-out.txt 2>&1
  echo "ablate $m rc $?"; grep -E "^simple_gla" $R/ablate-$m-out.txt | awk '{print $1, $2}'
done; pack; date
BASE_ENV='FLA_AB_OLD=1' NEW_ENV='FLA_AB_NONE=1' timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-113-old 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-113-old-out.txt 2>&1
echo "ab 113 against OLD rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-113-old-out.txt; pack; date
# (issue 4's table, racecheck, synccheck and ncu left out: the session's device time was short)
