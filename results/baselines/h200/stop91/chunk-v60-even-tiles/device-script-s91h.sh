#!/bin/bash
# stop 91, call h (carries build-part-c: chunk version 60's build, the key gradients' value loop compiled for
# its even tile counts; build-part-b/fb, version 59, from call g still on the machine): the battery of gla's,
# rwkv6's, simple_gla's and gsa's chunk and fused_recurrent variants, every dtype (compared on the CPU machine
# with version 59's, h200/stop91/chunk-v59-shift-rows/check-B.json.xz), then two A/B rounds of the fwd+bwd
# cases that run the key gradients at the peer shapes.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-b
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s91h; mkdir -p $R; cp run-s91h.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s91h.tar.xz s91h); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call g's build-part-b/fb is gone: a fresh machine"; exit 3; }
date
timeout 200 ./fb check --filter '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' --out $R/check-C.json > $R/check-C.log 2>&1; echo "check C rc $?"; tail -n2 $R/check-C.log
xz -T8 $R/check-C.json; pack; date
timeout 240 bash ../scripts/ab-rounds.sh $B/fb ./fb $R/ab 2 \
  --filter '^(gla|rwkv6|simple_gla|gsa)/chunk/fwdbwd/bf16/|^(gla|gsa)/fused_recurrent/fwdbwd/bf16/|^gla/chunk/fwdbwd/fp32/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 45 $R/ab-out.txt
pack; date
