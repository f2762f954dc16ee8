#!/bin/bash
# stop 91, call d (carries build-part-b: chunk version 59's build, the kernels of f12d2f0, built from 048e2b3 with
# its diff, so it names itself 048e2b3 dirty): issue 4's table (gla, rwkv6, simple_gla chunk bf16 at every chunk
# size) and issue 10's fused grid (gsa's and gla's fused_recurrent, every dtype) on one H200, the kernels of
# chunk versions 57-59 (no H100 lent: the tables of record stay stop 81's).
cd "$(dirname "$0")"; [ -x fb ] || { xz -dc fla-bench.xz > fb; chmod +x fb; }; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s91d; mkdir -p $R; cp run-s91d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s91d.tar.xz s91d); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
O="--preset peer --min-time 0.2 --min-samples 5"
date
timeout 200 ./fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "issue 4 rc $?"; tail -n1 $R/issue4-chunk.log; pack; date
timeout 160 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "issue 10 rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
