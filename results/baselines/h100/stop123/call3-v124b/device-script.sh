#!/bin/bash
# Stop 123's third call: version 124 with the gradients kernel's start loads left out where the chunk's decay
# factor underflowed to zero, and the battery's new near-zero-decay cases at the sequence segments' shapes
# (call 1's battery was bit for bit with and without the runs: typical decays forget a state within a chunk,
# so the starts never showed). FLA_AB_ONE_RUN=1: main's one-run reverse scan.
# Predictions: the near-zero cases all ok, simple_gla's errors there changed at the fp32 level by the runs
# (same levels), every other case bit for bit; gla's, rwkv6's, gsa's and rwkv7's new cases (bf16, C = 64) ok;
# simple_gla's chunk fwd+bwd at 1,24576,16,64 0.88-0.92x of the one-run (call 1: 0.93-0.95; the gradients
# kernel's +39 us mostly gone), the rest "same".
# To run: copy this file to p3/; move results/baselines aside; carry build-part-s123/v124b.
set -u
source scripts/device-call.sh build-part-s123/v124b v124b || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
FLA_AB_ONE_RUN=1 battery check-sg-one-run "$SG" "" 80
battery check-sg-runs "$SG" $R/check-sg-one-run.json.xz 80
grep -E "near_zero_segments" $R/check-sg-runs-errors.txt | head -20
battery check-near-zero-all '/(gla|rwkv6|gsa|rwkv7)/chunk/(fwd|fwdbwd)/bf16/.*/C64/near_zero_segments' "" 100
grep -E "FAIL|failed" $R/check-near-zero-all.log | head -10
date
BASE_ENV=FLA_AB_ONE_RUN=1 timeout 110 scripts/ab-rounds.sh $fb $fb $R/ab-one-run-vs-runs 3 \
  --filter '^simple_gla/chunk/fwdbwd/bf16' --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check \
  > $R/ab.log 2>&1; echo "ab rc $?"; grep -A7 "^case" $R/ab.log
BASE_ENV=FLA_AB_ONE_RUN=1 timeout 80 scripts/ab-rounds.sh $fb $fb $R/ab-fused-one-run-vs-runs 2 \
  --filter '^simple_gla/fused_recurrent/fwdbwd/bf16' --preset peer --min-time 0.15 --min-samples 5 --no-check \
  > $R/ab-fused.log 2>&1; echo "ab fused rc $?"; grep -A7 "^case" $R/ab-fused.log
xz -T0 -f $R/ab-*/*.json; pack; date
timeout 30 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile-runs.json > $R/profile-runs.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile-runs.json
python3 scripts/timeline.py $R/profile-runs.json.xz > $R/timeline-runs.txt 2>&1; grep -E "us " $R/timeline-runs.txt | head -12
pack; date
