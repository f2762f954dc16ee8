#!/bin/bash
# Stop 111's seventh call: main at 1a5b049 as committed: simple_gla's bf16 chunk fwd and fwd+bwd at the two
# K = 128 peer shapes, five runs one after another, for the spread of 4,4096,16,128's fwd+bwd (0.779-0.828 ms
# over this stop's tables against its 0.828 target). Lands in $OUT/spread105.tar.xz.
set -u
source scripts/device-call.sh build-part-s111/main spread105 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
for i in 1 2 3 4 5; do
  timeout 40 $fb --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/B(4-T4096|2-T16384)-H16-K128' --axis C=64 --preset peer \
    --min-time 0.3 --min-samples 5 --no-check --out $R/run$i.json > $R/run$i.log 2>&1
  echo "run $i rc $?"; grep -E "^simple_gla" $R/run$i.log; xz -T0 -f $R/run$i.json
done; pack; date
