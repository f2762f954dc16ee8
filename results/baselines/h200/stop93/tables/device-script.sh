#!/bin/bash
# stop 93, call g (carries build-part-g: the committed kernels, gsa version 63's build): issue 10's fused grid
# (gsa's and gla's fused_recurrent, every dtype, the peer shapes) on one H200 with gsa version 63 (no H100
# lent: the table of record stays stop 81's; stop 91's H200 grid is the one before it).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s93g; mkdir -p $R; cp run-s93g.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
O="--preset peer --min-time 0.2 --min-samples 5"
date
timeout 300 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "issue 10 rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
(cd /tmp && tar -cJf $OUT/s93g.tar.xz s93g); date
