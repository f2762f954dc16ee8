#!/bin/bash
# stop 92, call b (carries build-part-d: chunk version 61's build, the output pass's products with constant
# tile counts; build-part-c/fb, version 60, from call a still on the machine): scripts/candidate.sh, the
# battery of gla's, rwkv6's, simple_gla's and gsa's chunk and fused_recurrent variants against version 60's
# (check-v60.json.xz = h200/stop91/chunk-v60-even-tiles/check-C.json.xz), then two A/B rounds of the forwards
# (bf16 gla, rwkv6, gsa; fp32 gla, rwkv6) and gla's bf16 fwd+bwd at the peer shapes.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-c
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s92b; mkdir -p $R; cp run-s92b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call a's build-part-c/fb is gone: a fresh machine"; exit 3; }
date
timeout 520 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' \
  check-v60.json.xz \
  --filter '^(gla|rwkv6|gsa)/chunk/fwd/bf16/|^(gla|rwkv6)/chunk/fwd/fp32/|^gla/chunk/fwdbwd/bf16/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
(cd /tmp && tar -cJf $OUT/s92b.tar.xz s92b); date
