#!/bin/bash
# stop 92, call g (carries build-part-f: chunk version 63's build; build-part-c/fb, version 60, from call f
# still on the machine): two A/B rounds of the fp16 fwd+bwd cases against version 60 at the peer shapes (the
# value gradients' fp16 instances spill 24-28 bytes since version 62; call e timed bf16 and fp32 only).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-c
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s92g; mkdir -p $R; cp run-s92g.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call f's build-part-c/fb is gone: a fresh machine"; exit 3; }
date
timeout 250 bash ../scripts/ab-rounds.sh $B/fb ./fb $R/ab 2 \
  --filter '^(gla|rwkv6|gsa)/chunk/fwdbwd/fp16/|^(gla|gsa)/fused_recurrent/fwdbwd/fp16/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 35 $R/ab-out.txt
(cd /tmp && tar -cJf $OUT/s92g.tar.xz s92g); date
