#!/bin/bash
# stop 68's kernels (build 5d7cb00; later commits change comments and records only): issue 4's chunk run
# (gla, rwkv6, simple_gla, bf16, C = 16, 32, 64) and issue 5's (rwkv7 chunk at every chunk size beside its
# fused_recurrent), checked, on the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop68-tables; mkdir -p $R; cp run-tables.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb --filter '^(gla|rwkv6|simple_gla)/chunk/' --axis dtype=bf16 --axis C=16,32,64 --preset peer --min-time 0.2 --min-samples 5 --out $R/chunk.json > $R/chunk.log 2>&1; tail -n1 $R/chunk.log
date
./fb --filter '^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer --min-time 0.2 --min-samples 5 --out $R/rwkv7.json > $R/rwkv7.log 2>&1; tail -n1 $R/rwkv7.log
date
