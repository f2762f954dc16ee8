#!/bin/bash
# Stop 109's sixth call: the final build of branch v102-backward-passes (no A/B switch): the battery of
# simple_gla's bf16 cases (chunk and fused_recurrent), with the new fwd+bwd case at V = 32 (the one-kernel
# forward's reverse scan, where the backward's passes do not run). Lands in $OUT/v102f.tar.xz.
set -u
source scripts/device-call.sh build-part-s109/v102main v102f || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 90 $fb check --no-long --filter '/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/' \
  --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; grep -E "FAIL" $R/check.log | head; grep -E "B2-T130-H48-K64-V32" $R/check.log
xz -T0 -f $R/check.json; pack; date
