#!/bin/bash
# stop 69, call B: the committed kernels' times (this build: stop 68's kernels, the battery's new cases) for
# the 3xTF32 A/B: every chunk variant in fp32 and bf16 (control), and the fused fwd+bwd that run the chunk
# form's backward, on the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/b; mkdir -p $R; cp run-b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb --filter '^(gla|rwkv6|simple_gla|gsa|rwkv7)/chunk/' --axis dtype=fp32,bf16 --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/chunk-base.json > $R/chunk-base.log 2>&1; tail -n1 $R/chunk-base.log
date
./fb --filter '^(gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwdbwd/' --axis dtype=fp32,bf16 --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/fused-base.json > $R/fused-base.log 2>&1; tail -n1 $R/fused-base.log
date
cd $OUT && tar cJf b.tar.xz b && rm -rf b
