#!/bin/bash
# Stop 123, diagnostic: does the battery's 1,4100,16,64 fwd+bwd take version 124's runs? (call 1's battery
# was bit for bit with and without FLA_AB_ONE_RUN.) Timeline of that shape both ways, and the check's
# errors of that case both ways.
set -u
source scripts/device-call.sh build-part-s123/v124 v124-diag || exit 2
for side in one-run runs; do
  E=""; [ $side = one-run ] && E=FLA_AB_ONE_RUN=1
  env $E timeout 30 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=1 --axis T=4100 --axis H=16 \
    --axis K=64 --axis V=64 --axis C=64 --min-time 0.05 --out $R/profile-$side.json > $R/profile-$side.log 2>&1
  echo "profile $side rc $?"; xz -T0 -f $R/profile-$side.json
  python3 scripts/timeline.py $R/profile-$side.json.xz 2>&1 | grep -E "launches|us " | head -12
  grep -iE "dh0|check|error" $R/profile-$side.log | head -5
  env $E timeout 30 $fb check --no-long --filter 'shapes/simple_gla/chunk/fwdbwd/bf16/B1-T4100-H16-K64-V64/C64' \
    --out $R/check-$side.json > $R/check-$side.log 2>&1; echo "check $side rc $?"; tail -4 $R/check-$side.log
done
pack
