#!/bin/bash
# stop 90, call e (carries build-part-b: chunk version 57's build, dea4b40's kernels): the reference battery
# of gla's, rwkv6's, simple_gla's and gsa's chunk and fused_recurrent variants, every dtype, for chunk
# version 58's error comparison in call f. Leaves build-part-b/fb on the machine for call f's A/B rounds.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s90e; mkdir -p $R; cp run-s90e.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
timeout 200 ./fb check --filter '/(gla|rwkv6|simple_gla|gsa)/(chunk|fused_recurrent)/' --out $R/check-B.json > $R/check-B.log 2>&1; echo "check B rc $?"; tail -n2 $R/check-B.log
xz -T4 $R/check-B.json; cp $R/check-B.json.xz ./ref-B.json.xz
(cd /tmp && tar -cJf $OUT/s90e.tar.xz s90e); date
