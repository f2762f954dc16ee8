#!/bin/bash
# stop 90, call f (carries build-part-c: chunk version 58's build, exp by one MUFU.EX2 with flush to zero in
# the chunk kernels, gsa's logits and softmax; build-part-b from call e still on the machine): the battery of
# call e on C against B's errors, two A/B rounds of the bf16 chunk fwd and fwd+bwd of gla, rwkv6, simple_gla
# and gsa and the bf16 fused fwd+bwd of gla and gsa (issue 10's cells) at the peer shapes.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-b
export LD_LIBRARY_PATH=$PWD/../build-part-b/lib
R=/tmp/s90f; mkdir -p $R; cp run-s90f.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s90f.tar.xz s90f); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call e's build-part-b/fb is gone: a fresh machine"; exit 3; }
date
timeout 200 ./fb check --filter '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' --out $R/check-C.json > $R/check-C.log 2>&1; echo "check C rc $?"; tail -n2 $R/check-C.log
python3 ../scripts/check-error-compare.py $B/ref-B.json.xz $R/check-C.json > $R/check-errors-B-vs-C.txt 2>&1; head -n 40 $R/check-errors-B-vs-C.txt
xz -T4 $R/check-C.json; pack; date
timeout 300 bash ../scripts/ab-rounds.sh $B/fb ./fb $R/ab 2 \
  --filter '^(gla|rwkv6|simple_gla|gsa)/chunk/(fwd|fwdbwd)/bf16/|^(gla|gsa)/fused_recurrent/fwdbwd/bf16/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 90 $R/ab-out.txt
pack; date
