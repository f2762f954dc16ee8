#!/bin/bash
# stop 94, call f (carries build-part-e: the committed kernels with chunk version 69, b5da900): issues 3, 4 and
# 10's speed tables on one H200 (no H100 lent: the tables of record stay stop 81's H100 run): the fused
# variants' bf16 rows (issue 3), the gla / rwkv6 / simple_gla chunk rows at C 16/32/64 (issue 4), gsa's and
# gla's fused grid in every dtype (issue 10).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s94f; mkdir -p $R; cp run-f.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s94f.tar.xz s94f); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
O="--preset peer --min-time 0.2 --min-samples 5"
date
timeout 150 ./fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "issue 4 rc $?"; tail -n1 $R/issue4-chunk.log; pack; date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "issue 10 rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log; pack; date
timeout 120 ./fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' $O --out $R/issue3-fused.json > $R/issue3-fused.log 2>&1; echo "issue 3 rc $?"; tail -n1 $R/issue3-fused.log
pack; date
