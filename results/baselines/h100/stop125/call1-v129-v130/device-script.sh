#!/bin/bash
# Stop 125, call 1: version 129 (branch v128-stmatrix-early-dot at a55262a: version 128's score tiles by
# stmatrix and S0 . dS's loads at K = V = 64 before the chunk's staging, then the chunks placed without
# divisions) against 127 (main, 6b40cbc); version 130 (branch v130-balanced-tiles: A made transposed, so that
# each SM sub-partition's two tile warps share the causal triangle's work) against 129; batteries,
# sanitizers; 130's gradients kernel in a timeline and under ncu. (128 alone is not measured: four bundles
# pass the carry limit.)
# Predictions: 129 bit for bit v127's battery; 130 the same error levels (A's decay factors multiplied in
# another order). simple_gla's chunk fwd+bwd at 1,24576,16,64: 129 0.90-0.96x of 127 (the state dot's wait
# and the tiles' stores, 8% and part of 17% of the stall samples; the divisions of the prologue's 25%);
# 130 0.95-0.98x of 129 (the tile region's busiest sub-partition from 8 column steps to 5); the rest "same"
# or better.
set -u
source scripts/device-call.sh build-part-s125/v129 v129 || exit 2
v127=/tmp/fb-v127 v130=/tmp/fb-v130
xz -dc build-part-s125/v127/fla-bench.xz > $v127 && chmod +x $v127 || echo "no v127 bundle"
xz -dc build-part-s125/v130/fla-bench.xz > $v130 && chmod +x $v130 || echo "no v130 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $v127 --version; $v130 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
AB=(--filter '^simple_gla/chunk/fwdbwd/bf16' --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check)
battery check-v129-sg "$SG" "$(dirname "$0")/check-v127-sg.json.xz" 60
timeout 100 scripts/ab-rounds.sh $v127 $fb $R/ab-v127-vs-v129 2 "${AB[@]}" > $R/ab-v129.log 2>&1
echo "ab v129 rc $?"; grep -A13 "^case" $R/ab-v129.log; pack
v129=$fb; fb=$v130
battery check-v130-sg "$SG" $R/check-v129-sg.json.xz 60
timeout 100 scripts/ab-rounds.sh $v129 $v130 $R/ab-v129-vs-v130 2 "${AB[@]}" > $R/ab-v130.log 2>&1
echo "ab v130 rc $?"; grep -A13 "^case" $R/ab-v130.log; xz -T0 -f $R/ab-*/*.json; pack
S='^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64'
sanitizers runs-v130 "$S" 45
timeout 30 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile-v130.json > $R/profile-v130.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile-v130.json
python3 scripts/timeline.py $R/profile-v130.json.xz > $R/timeline-v130.txt 2>&1; grep -E "us |launches" $R/timeline-v130.txt | tail -4; pack
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel grads-v130 scalar_grads_wgmma_kernel 80 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
fb=$v129; sanitizers runs-v129 "$S" 45
date
