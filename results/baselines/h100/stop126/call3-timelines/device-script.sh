#!/bin/bash
# Stop 126, call 3 (warm machine): timelines of simple_gla's chunk fwd+bwd at 1,24576,16,64 for 127 (main) and
# 134, so that the gradients kernel's own time is read beside call 1's A/B of the whole.
set -u
source scripts/device-call.sh build-part-s125/v134 call3 || exit 2
v127=/tmp/fb-v127 v134=$fb
[ -x $v127 ] || { xz -dc build-part-s125/v127/fla-bench.xz > $v127 && chmod +x $v127; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
for v in v127 v134 v127 v134; do
  timeout 30 "${!v}" profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 \
    --min-time 0.1 --no-check --out $R/profile-$v.json > $R/profile-$v.log 2>&1
  echo "profile $v rc $?"; xz -T0 -f $R/profile-$v.json
  python3 scripts/timeline.py $R/profile-$v.json.xz > $R/timeline-$v.txt 2>&1
  grep -E "grads_wgmma|launches" $R/timeline-$v.txt
done
pack
