#!/bin/bash
# Stop 123's first call: chunk version 124 (simple_gla's backward at few heads: the reverse scan in runs
# from zeros, folded into each run's start, the wgmma gradients kernel adding start x decay factor to each
# chunk's run-local state gradient; kernels/common/chunk/state_grad_runs.h), timed against itself with
# FLA_AB_ONE_RUN=1 (main's one-run reverse scan; a temporary switch of this build only), one machine.
# Predictions (before the run; kernels/notes/chunk.md, version 124): simple_gla's chunk fwd+bwd at
# 1,24576,16,64 0.834 -> 0.70-0.75 ms (the reverse scan 191 us -> 60-75 us of runs and the fold, the gradients
# kernel 5-15 us longer); its fused_recurrent fwd+bwd there (the same backward) ~0.1 ms less; every other
# peer shape "same" (they take the fused passes or the fused reverse scan). Battery all ok; with the switch
# bit for bit stop 122's v123 (the scan's decay product moved after its stores); the runs' shapes
# (1,4100,16,64, 1,1100,2,128,128, ...) at the same error levels; gla's and rwkv6's bit for bit v123's.
# To run: copy this file to p1/ with h100/stop122/call5-v123/check-simple_gla.json.xz as check-sg-123.json.xz
# and check-gla-rwkv6.json.xz as check-gr-123.json.xz; move results/baselines aside; carry build-part-s123/v124.
set -u
source scripts/device-call.sh build-part-s123/v124 v124 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
FLA_AB_ONE_RUN=1 battery check-sg-one-run "$SG" p1/check-sg-123.json.xz 80
battery check-sg-runs "$SG" $R/check-sg-one-run.json.xz 80
date
BASE_ENV=FLA_AB_ONE_RUN=1 timeout 110 scripts/ab-rounds.sh $fb $fb $R/ab-one-run-vs-runs 3 \
  --filter '^simple_gla/chunk/fwdbwd/bf16' --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check \
  > $R/ab.log 2>&1; echo "ab rc $?"; tail -8 $R/ab.log
BASE_ENV=FLA_AB_ONE_RUN=1 timeout 90 scripts/ab-rounds.sh $fb $fb $R/ab-fused-one-run-vs-runs 2 \
  --filter '^simple_gla/fused_recurrent/fwdbwd/bf16' --preset peer --min-time 0.15 --min-samples 5 --no-check \
  > $R/ab-fused.log 2>&1; echo "ab fused rc $?"; tail -8 $R/ab-fused.log
xz -T0 -f $R/ab-*/*.json; pack; date
for side in one-run runs; do
  env $( [ $side = one-run ] && echo FLA_AB_ONE_RUN=1 ) timeout 30 $fb profile \
    --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 --min-time 0.1 --no-check \
    --out $R/profile-$side.json > $R/profile-$side.log 2>&1
  echo "profile $side rc $?"; xz -T0 -f $R/profile-$side.json
  python3 scripts/timeline.py $R/profile-$side.json.xz > $R/timeline-$side.txt 2>&1
  grep -E "launches|us " $R/timeline-$side.txt | head -14
done
pack; date
battery check-gla-rwkv6 '/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/' p1/check-gr-123.json.xz 120
date
