#!/bin/bash
# Stop 119's second call, prepared and not run (the session's device time was spent on failed starts before
# its one call). The backward's ablations: version 113's FLA_ABLATE masks (stop 116 call 1 timed them on the
# forward only) put on version 115 (A/B build v115-ablate d333ec1, ab-build-v115-ablate.diff from main
# 751b539; ptxas: no spills in any of the fused kernel's 20 instances) for
# simple_gla's fused backward passes, with a new bit for the dots' work of dq's and dk's passes. The closest
# unmet cells of issue 4 are fwd+bwd (8,1024,8,64: 0.115 ms against 0.106) or need the passes as much as
# the forward; which work of theirs moves the period is unmeasured.
# Masks (FLA_ABLATE for the backward's three passes, FLA_ABLATE_FORWARD for the forward, 0 here: its shares
# are stop 116's): 1 the decays' scan, 2 the copies, 4 the state's making, 8 S's publishing, 16 the decayed
# scores, 32 the outputs' stores, 64 the state's update products, 128 the dots' work. The results are wrong
# under any mask but 0.
# To run: copy this folder's files to p/ with h100/stop119/call1-land118/check.json.xz, move
# results/baselines aside, carry build-part-s119/v115-ablate (git-ignored: rebuild it from branch
# v115-ablate with -DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_FLAGS=-compress-mode=none
# -DFLA_BENCH_BUILD_TESTS=OFF, then ../shared/tools/bundle-for-device and xz), `bash p/device-script.sh`.
# Steps: (1) the battery of simple_gla's bf16 chunk cases with no mask, against 115's (bit for bit: the
# switch reads a constant only); (2) each mask against 0, one round, simple_gla's fwd+bwd at the four fused
# shapes; (3) per-kernel profiles (with the passes' timeline) with no mask and with 255 at 8,1024,8,64 and
# 4,4096,16,64.
# Prediction (before any run): (1) bit for bit. (2) At 8,1024,8,64 (16 chunks a block) as the forward's
# ablation there: only the copies (2) and the stores (32) past 5% (0.88-0.93 each), the dots (128) 0.93-0.97,
# the rest "same"; at the longer shapes every bit 3-12% and the single bits' savings adding up to the 127
# mask's; 255 0.45-0.6 of the fwd+bwd (the forward, about a fifth, and the gate scan untouched).
set -u
source scripts/device-call.sh build-part-s119/v115-ablate v115abl p/ab-build-v115-ablate.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 60 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p/check.json.xz $R/check.json.xz > $R/check-errors-vs-115.txt 2>&1
head -4 $R/check-errors-vs-115.txt; pack; date
F='^simple_gla/chunk/fwdbwd/bf16/(B8-T1024-H8-K64|B4-T4096-H16-K64|B2-T16384-H16-K128|B4-T4096-H16-K128)'
for m in 127 2 32 128 8 4 64 16 1 255; do
  BASE_ENV=FLA_ABLATE=0 NEW_ENV=FLA_ABLATE=$m timeout 60 scripts/ab-rounds.sh $fb $fb $R/ablate-$m 1 \
    --filter "$F" --axis C=64 --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ablate-$m-out.txt 2>&1
  echo "mask $m rc $?"; grep -E "^simple_gla" $R/ablate-$m-out.txt | awk '{print $1, $2}'
  xz -T0 -f $R/ablate-$m/*.json; pack
done; date
for m in 0 255; do
  FLA_ABLATE=$m timeout 45 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/(B8-T1024|B4-T4096-H16-K64)' \
    --preset peer --axis C=64 --min-time 0.1 --no-check --out $R/profile-$m.json > $R/profile-$m.log 2>&1
  echo "profile $m rc $?"; xz -T0 -f $R/profile-$m.json
  python3 scripts/timeline.py $R/profile-$m.json.xz > $R/timeline-$m.txt 2>&1; head -12 $R/timeline-$m.txt; pack
done; date
