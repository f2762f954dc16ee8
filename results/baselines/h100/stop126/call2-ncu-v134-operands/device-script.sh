#!/bin/bash
# Stop 126, call 2 (on call 1's warm machine): ncu of version 134's gradients kernel at 1,24576,16,64 (where
# its time goes with the staging, S0 . dS and the decays off the prologue), then where gla's operands pass
# spends its time at few heads (1,24576,16,64: 236 us of the 469 us forward in stop 122's timeline; never
# profiled there) with main's build: its timeline at 1,24576,16,64 and 4,4096,16,64, and ncu of one launch.
set -u
source scripts/device-call.sh build-part-s125/v134 call2 || exit 2
v127=/tmp/fb-v127
[ -x $v127 ] || { xz -dc build-part-s125/v127/fla-bench.xz > $v127 && chmod +x $v127; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel grads-v134 scalar_grads_wgmma_kernel 75 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
fb=$v127
timeout 40 $fb profile --filter "^gla/chunk/fwd/bf16/B(1-T24576|4-T4096)-H16-K64" --preset peer --axis C=64 \
  --min-time 0.1 --no-check --out $R/profile-gla.json > $R/profile-gla.log 2>&1
echo "profile gla rc $?"; xz -T0 -f $R/profile-gla.json
python3 scripts/timeline.py $R/profile-gla.json.xz > $R/timeline-gla.txt 2>&1
grep -E "operands|launches" $R/timeline-gla.txt; pack
ncu_kernel operands-gla chunk_operands_kernel 100 --filter '^gla/chunk/fwd/bf16/' "${one_shape[@]}"
date
