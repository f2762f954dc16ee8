#!/bin/bash
# stop 69, call C: 3xTF32 in every chunk kernel's fp32 products (mma_k16<float>): the whole battery, then
# the same times as call B: every chunk variant in fp32 and bf16 (control), and the fused fwd+bwd that run the chunk
# form's backward, on the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/c; mkdir -p $R; cp run-c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log; grep FAIL $R/check-all.log | head -5
date
./fb --filter '^(gla|rwkv6|simple_gla|gsa|rwkv7)/chunk/' --axis dtype=fp32,bf16 --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/chunk-new.json > $R/chunk-new.log 2>&1; tail -n1 $R/chunk-new.log
date
./fb --filter '^(gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwdbwd/' --axis dtype=fp32,bf16 --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/fused-new.json > $R/fused-new.log 2>&1; tail -n1 $R/fused-new.log
date
cd $OUT && tar cJf c.tar.xz c && rm -rf c
