#!/bin/bash
# stop 91, call a (carries build-part-a: the HEAD build 048e2b3, chunk version 58): the reference battery of
# gla's, rwkv6's, simple_gla's and gsa's chunk and fused_recurrent variants, every dtype, for chunk version
# 59's comparison in call b. Leaves build-part-a/fb on the machine for call b's A/B rounds.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s91a; mkdir -p $R; cp run-s91a.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
timeout 200 ./fb check --filter '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' --out $R/check-A.json > $R/check-A.log 2>&1; echo "check A rc $?"; tail -n2 $R/check-A.log
xz -T4 $R/check-A.json; cp $R/check-A.json.xz ./ref-A.json.xz
(cd /tmp && tar -cJf $OUT/s91a.tar.xz s91a); date
