#!/bin/bash
# stop 81's final build (fused_recurrent version 90: rwkv7's bf16 forward that saves nothing at two columns a
# lane where plain_forward_takes_two_columns says): rwkv7's fused battery and memcheck of its bf16 K = 128
# cases, then every open issue's speed table from one build on one GPU (the issues name the H100): issue 3
# (the four ops' fused_recurrent bf16), issue 5 (rwkv7 chunk bf16, every chunk size), issue 4 (gla, rwkv6,
# simple_gla chunk bf16, every chunk size), issue 10 (gsa's and gla's fused_recurrent every dtype, gsa's chunk
# bf16).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s81c; mkdir -p $R
cp run-s81c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s81c.tar.xz s81c); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
timeout 60 ./fb check --filter 'rwkv7/fused_recurrent/' --out $R/check-rwkv7-fused.json > $R/check-rwkv7-fused.log 2>&1; tail -n2 $R/check-rwkv7-fused.log
timeout 80 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/.*/bf16/.*K128-V128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5"
timeout 100 ./fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' $O --out $R/issue3-fused.json > $R/issue3-fused.log 2>&1; tail -n1 $R/issue3-fused.log; pack
timeout 80 ./fb --filter '^rwkv7/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue5-rwkv7-chunk.json > $R/issue5-rwkv7-chunk.log 2>&1; tail -n1 $R/issue5-rwkv7-chunk.log; pack; date
timeout 150 ./fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; tail -n1 $R/issue4-chunk.log; pack; date
timeout 120 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; tail -n1 $R/issue10-gsa-gla-fused.log; pack
timeout 60 ./fb --filter '^gsa/chunk/(fwd|fwdbwd)/bf16' --axis C=32,64 $O --out $R/issue10-gsa-chunk.json > $R/issue10-gsa-chunk.log 2>&1; tail -n1 $R/issue10-gsa-chunk.log
pack; date
