#!/bin/bash
# stop 91, call b (carries build-part-b: chunk version 59's build, the C x C loops' row by a shift and column by
# a mask; build-part-a from call a still on the machine): call a's battery on B against A's errors (bit for
# bit expected), two A/B rounds of the bf16 chunk fwd and fwd+bwd of gla, rwkv6, simple_gla and gsa, the bf16
# fused fwd+bwd of gla and gsa, and the fp32 chunk fwd of gla, rwkv6 and simple_gla at the peer shapes.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; A=../build-part-a
export LD_LIBRARY_PATH=$PWD/../build-part-a/lib
R=/tmp/s91b; mkdir -p $R; cp run-s91b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s91b.tar.xz s91b); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $A/fb ] || { echo "call a's build-part-a/fb is gone: a fresh machine"; exit 3; }
date
timeout 200 ./fb check --filter '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' --out $R/check-B.json > $R/check-B.log 2>&1; echo "check B rc $?"; tail -n2 $R/check-B.log
python3 ../scripts/check-error-compare.py $A/ref-A.json.xz $R/check-B.json > $R/check-errors-A-vs-B.txt 2>&1; head -n 40 $R/check-errors-A-vs-B.txt
xz -T4 $R/check-B.json; pack; date
timeout 300 bash ../scripts/ab-rounds.sh $A/fb ./fb $R/ab 2 \
  --filter '^(gla|rwkv6|simple_gla|gsa)/chunk/(fwd|fwdbwd)/bf16/|^(gla|gsa)/fused_recurrent/fwdbwd/bf16/|^(gla|rwkv6|simple_gla)/chunk/fwd/fp32/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 90 $R/ab-out.txt
pack; date
