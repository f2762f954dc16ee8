#!/bin/bash
# Prepared at stop 125, not run: the session's device time went to failed starts (one call of eighteen
# tries started). To run: build main's chunk version 127 (6b40cbc or later, the gradients kernel unchanged),
# c4f3557 (v131-dot-in-dv) and 1917d83 (v132-decays-ahead) slim (90-real, -compress-mode=none, tests off),
# bundle them as build-part-s125/{v127,v131,v132} (bundle-for-device, then xz the binary); copy this file and
# check-v127-sg.json.xz (stop 125 call 1's base: 127's battery, from stop 124 call C) into an untracked
# folder; move results/baselines aside; carry build-part-s125; `bash pN/call-v132.sh`.
# Version 132 (branch v132-decays-ahead at 1917d83: 131's S0 . dS made by dv's warpgroup under its first
# state products, before it waits for the score tiles, where all 384 threads made it before the chunk's
# barrier and waited there on its loads; then the next chunk's decays made by dv's first warp once its
# outputs are out, double-buffered, where warp 0 made them before each chunk's barrier) against main's 127:
# the battery, an A/B, sanitizers; then, as time allows, 131 (c4f3557) against 127, 132's timeline and ncu.
# Predictions: the battery's error levels (dg's state term now summed from four partials, not twelve);
# simple_gla's chunk fwd+bwd at 1,24576,16,64 0.91-0.96x of 127 (131: 0.94-0.97x, the dot's wait off every
# warp's path; 132: 0.97-0.99x of 131, warp 0's scan off it); K = V = 128 "same" or slower (the dot's 32
# vectors a thread on one warpgroup).
set -u
source scripts/device-call.sh build-part-s125/v132 v132 || exit 2
v127=/tmp/fb-v127 v131=/tmp/fb-v131
xz -dc build-part-s125/v127/fla-bench.xz > $v127 && chmod +x $v127 || echo "no v127 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $v127 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
AB=(--filter '^simple_gla/chunk/fwdbwd/bf16' --axis C=64 --preset peer --min-time 0.1 --min-samples 5 --no-check)
battery check-v132-sg "$SG" "$(dirname "$0")/check-v127-sg.json.xz" 60
timeout 90 scripts/ab-rounds.sh $v127 $fb $R/ab-v127-vs-v132 2 "${AB[@]}" > $R/ab-v132.log 2>&1
echo "ab v132 rc $?"; grep -A13 "^case" $R/ab-v132.log; xz -T0 -f $R/ab-*/*.json; pack
S='^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64'
sanitizers runs-v132 "$S" 40
timeout 20 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile-v132.json > $R/profile-v132.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile-v132.json
python3 scripts/timeline.py $R/profile-v132.json.xz > $R/timeline-v132.txt 2>&1; grep -E "us |launches" $R/timeline-v132.txt | tail -2; pack
xz -dc build-part-s125/v131/fla-bench.xz > $v131 && chmod +x $v131 || echo "no v131 bundle"
timeout 90 scripts/ab-rounds.sh $v127 $v131 $R/ab-v127-vs-v131 2 "${AB[@]}" > $R/ab-v131.log 2>&1
echo "ab v131 rc $?"; grep -A13 "^case" $R/ab-v131.log; xz -T0 -f $R/ab-*/*.json; pack
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel grads-v132 scalar_grads_wgmma_kernel 70 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
date
