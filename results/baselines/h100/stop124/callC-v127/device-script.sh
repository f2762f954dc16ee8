#!/bin/bash
# Stop 124, call C (any H100 or H200): version 127 (the gradients kernel's score tiles from one call site, one
# instance for every warp: v126's per-warp instances missed the instruction cache, no_inst 24.5% of its
# stall samples) against version 126; sanitizers over both builds' gradients kernel (few heads, runs).
# Predictions: bit for bit v126's battery; simple_gla's chunk fwd+bwd at 1,24576,16,64 0.90-0.97x of v126,
# the rest "same" (the fused passes' decayed_scores compile to the same code).
set -u
source scripts/device-call.sh build-part-s124/v127 v127 || exit 2
v126=/tmp/fb-v126
xz -dc build-part-s124/v126/fla-bench.xz > $v126 && chmod +x $v126 || echo "no v126 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $v126 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
battery check-v127-sg "$SG" "$(dirname "$0")/check-v126-sg.json.xz" 80
timeout 110 scripts/ab-rounds.sh $v126 $fb $R/ab-v126-vs-v127 3 --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1
echo "ab rc $?"; grep -A13 "^case" $R/ab.log; xz -T0 -f $R/ab-*/*.json; pack
timeout 30 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile-v127.json > $R/profile-v127.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile-v127.json
python3 scripts/timeline.py $R/profile-v127.json.xz > $R/timeline-v127.txt 2>&1; grep -E "us |launches" $R/timeline-v127.txt | tail -3; pack
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel grads-v127 scalar_grads_wgmma_kernel 100 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
tail -1 $R/grads-v127-regions.txt
S='^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64'
sanitizers runs-v127 "$S" 60
fb=$v126; sanitizers runs-v126 "$S" 60
date
