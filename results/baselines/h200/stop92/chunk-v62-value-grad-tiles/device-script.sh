#!/bin/bash
# stop 92, call c (carries build-part-e: chunk version 62's build, version 61 and the value gradients'
# products with constant tile counts; build-part-d/fb, version 61, from call b still on the machine):
# scripts/candidate.sh, the battery of gla's, rwkv6's, simple_gla's and gsa's chunk and fused_recurrent
# variants against version 60's (check-v60.json.xz = h200/stop91/chunk-v60-even-tiles/check-C.json.xz), then
# two A/B rounds of the fwd+bwd cases that run the value gradients at the peer shapes, against version 61.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-d
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s92c; mkdir -p $R; cp run-s92c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call b's build-part-d/fb is gone: a fresh machine"; exit 3; }
date
timeout 520 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' \
  check-v60.json.xz \
  --filter '^(gla|rwkv6|simple_gla|gsa)/chunk/fwdbwd/bf16/|^(gla|gsa)/fused_recurrent/fwdbwd/bf16/|^gla/chunk/fwdbwd/fp32/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
(cd /tmp && tar -cJf $OUT/s92c.tar.xz s92c); date
