#!/bin/bash
# Stop 122's fifth call: chunk version 123 (branch v123-prepared-segments: gla's and rwkv6's prepared
# one-kernel forward at few heads over sequence segments) against version 122 (main 63687d5's kernels, the
# f9e9a43 build), one machine. v123 is the CI build (sm_90 with PTX), 122 a slim one (90-real).
# Predictions (before the run; kernels/notes/chunk.md, version 123): gla's forward at 1,24576,16,64 0.42-0.47
# ms (0.606), rwkv6's 0.44-0.50 (0.631), their fwd+bwd there 0.90-0.95x, every other case "same"
# (simple_gla's too: its forward's code moved, not its arithmetic); gla's and rwkv6's bf16 battery bit for
# bit 122's outside the split shapes, simple_gla's bit for bit; sanitizers clean on the split shapes.
# To run: copy this file to p4/ with h100/stop122/call1-v122/check.json.xz (simple_gla, 122) as
# check-sg-122.json.xz and h100/stop122/call3-v122-battery/check-new.json.xz as check-gr-122.json.xz and
# ../shared/anchors/peer-fla-h100.md; move results/baselines aside; carry build-part-s122/{v123,v122}.
set -u
source scripts/device-call.sh build-part-s122/v123 v123 || exit 2
base=/tmp/fb-v122
xz -dc build-part-s122/v122/fla-bench.xz > $base && chmod +x $base || echo "no v122 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version
date
battery check-gla-rwkv6 '/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/' p4/check-gr-122.json.xz 90
timeout 170 scripts/ab-rounds.sh $base $fb $R/ab-v122-vs-v123 2 --filter '^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -36 $R/ab.log
xz -T0 -f $R/ab-v122-vs-v123/*.json; pack; date
sanitizers segments '^[a-z_]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/(B1-T1100-H2-K128|B2-T4100-H2-K64).*C64' 60
date
battery check-simple_gla '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' p4/check-sg-122.json.xz 40
S='^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16'
timeout 60 $fb profile --filter "$S"'/B1-T24576' --preset peer --axis C=64 --min-time 0.1 --no-check \
  --out $R/profile.json > $R/profile.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile.json
python3 scripts/timeline.py $R/profile.json.xz > $R/timeline.txt 2>&1; grep -E "launches|kernel|segment" $R/timeline.txt | head -40
pack; date
issue4_table p4/peer-fla-h100.md 80
grep -E "1,24576" $R/issue4-chunk-peer-table.md; date
