#!/bin/bash
# Prepared at stop 124, not run (the device found no machine for the session's last calls): versions 128
# (branch v128-stmatrix-early-dot at 71c51ce: the gradients kernel's score tiles by stmatrix; S0 . dS's loads
# at K = V = 64 before the chunk's staging) against 127, and 129 (the branch's head, 68ec208: the chunks
# placed without divisions) against 128; sanitizers over the last build's gradients kernel.
# Predictions: bit for bit v127's battery; simple_gla's chunk fwd+bwd at 1,24576,16,64 0.93-0.97x of v127
# (the loads' wait, ~8% of the kernel's stall samples, mostly hidden; the tiles' 64 stores a thread -> 8
# stmatrix), the rest "same"; 129 0.96-0.99x of 128 there.
# To run: build main (version 127, 6c64518 or later), 71c51ce and 68ec208 slim (90-real, -compress-mode=none,
# tests off), bundle them as build-part-s124/{v127,v128,v129}; copy this file and
# check-v127-sg.json.xz (stop 124 call C's battery of 127) into an untracked folder; move results/baselines
# aside; carry the three bundles; `bash pN/call-v128.sh`.
set -u
source scripts/device-call.sh build-part-s124/v128 v128 || exit 2
v127=/tmp/fb-v127
xz -dc build-part-s124/v127/fla-bench.xz > $v127 && chmod +x $v127 || echo "no v127 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $v127 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
battery check-v128-sg "$SG" "$(dirname "$0")/check-v127-sg.json.xz" 80
timeout 100 scripts/ab-rounds.sh $v127 $fb $R/ab-v127-vs-v128 2 --filter '^simple_gla/chunk/fwdbwd/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1
echo "ab rc $?"; grep -A13 "^case" $R/ab.log; pack
v128=$fb v129=/tmp/fb-v129
xz -dc build-part-s124/v129/fla-bench.xz > $v129 && chmod +x $v129 || echo "no v129 bundle"
$v129 --version; fb=$v129
battery check-v129-sg "$SG" $R/check-v128-sg.json.xz 80
timeout 100 scripts/ab-rounds.sh $v128 $v129 $R/ab-v128-vs-v129 2 --filter '^simple_gla/chunk/fwdbwd/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab-v129.log 2>&1
echo "ab v129 rc $?"; grep -A8 "^case" $R/ab-v129.log; xz -T0 -f $R/ab-*/*.json; pack
sanitizers runs-v129 '^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64' 60
date
