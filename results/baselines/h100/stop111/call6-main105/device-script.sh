#!/bin/bash
# Stop 111's sixth call: main at 1a5b049 as committed (chunk version 105, no A/B switch): the battery of
# simple_gla's bf16 chunk and fused_recurrent cases, and issue 4's table from the committed build. Lands in
# $OUT/main105.tar.xz.
set -u
source scripts/device-call.sh build-part-s111/main main105 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 80 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; grep -E "FAIL|failed" $R/check.log | head -20
xz -T0 -f $R/check.json; pack
timeout 140 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
