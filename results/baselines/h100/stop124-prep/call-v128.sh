#!/bin/bash
# Prepared at stop 124, not run (the device found no machine for the session's last calls): version 128
# (branch v128-stmatrix-early-dot: the gradients kernel's score tiles by stmatrix; S0 . dS's loads at
# K = V = 64 before the chunk's staging) against version 127; sanitizers over v128's gradients kernel.
# Predictions: bit for bit v127's battery; simple_gla's chunk fwd+bwd at 1,24576,16,64 0.93-0.97x of v127
# (the loads' wait, ~8% of the kernel's stall samples, mostly hidden; the tiles' 64 stores a thread -> 8
# stmatrix), the rest "same".
# To run: build main (version 127, 6c64518 or later) and branch v128-stmatrix-early-dot slim (90-real,
# -compress-mode=none, tests off), bundle them as build-part-s124/{v127,v128}; copy this file and
# check-v127-sg.json.xz (stop 124 call C's battery of 127) into an untracked folder; move results/baselines
# aside; carry both bundles; `bash pN/call-v128.sh`.
set -u
source scripts/device-call.sh build-part-s124/v128 v128 || exit 2
v127=/tmp/fb-v127
xz -dc build-part-s124/v127/fla-bench.xz > $v127 && chmod +x $v127 || echo "no v127 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $v127 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
battery check-v128-sg "$SG" "$(dirname "$0")/check-v127-sg.json.xz" 80
timeout 100 scripts/ab-rounds.sh $v127 $fb $R/ab-v127-vs-v128 2 --filter '^simple_gla/chunk/fwdbwd/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1
echo "ab rc $?"; grep -A13 "^case" $R/ab.log; xz -T0 -f $R/ab-*/*.json; pack
sanitizers runs-v128 '^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64' 60
date
