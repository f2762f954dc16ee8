#!/bin/bash
# (prepared at stop 92 for the next stop) call b, carries build-part-g: gsa version 63's build (d8be505 with
# h200/stop92/gsa-slot-product-tiles-prep/exact-logit-tiles.diff applied: the logits kernels for the exact tile
# count) with build-part-f/fb, chunk version 63, from call a still on the machine: scripts/candidate.sh, the
# battery of gsa's chunk and fused_recurrent variants against version 60's (check-v60.json.xz =
# h200/stop91/chunk-v60-even-tiles/check-C.json.xz; bit for bit expected), then two A/B rounds against chunk
# version 63 of gsa's chunk forward and fwd+bwd (bf16, fp16, fp32) and its fused fwd+bwd (bf16, fp16) at the
# peer shapes, and gla's fused bf16 fwd+bwd (issue 10's bar, untouched: a control).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-f
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/gsa63; mkdir -p $R; cp run-gsa63-b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call a's build-part-f/fb is gone: a fresh machine"; exit 3; }
date
timeout 560 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/gsa/(chunk|fused_recurrent)/' check-v60.json.xz \
  --filter '^gsa/chunk/(fwd|fwdbwd)/|^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/|^gla/fused_recurrent/fwdbwd/bf16/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
(cd /tmp && tar -cJf $OUT/gsa63.tar.xz gsa63); date
