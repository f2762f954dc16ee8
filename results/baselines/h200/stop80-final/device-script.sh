#!/bin/bash
# stop 80's final build (rwkv7 chunk v69 kept: the 512-thread local gradients hold the value slices' sums in
# shared memory where V takes two slices): battery, memcheck of the held kernel's cases, the issue-5 and
# issue-3 rwkv7 run (bf16, every chunk size, peer shapes), profile of the K = 128 fwd+bwd.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s80d; mkdir -p $R; cp run-s80d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s80d.tar.xz s80d); }
nvidia-smi -L > $R/gpu.txt
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'local_grads_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
timeout 60 ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/.*/(bf16|fp16)/' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
pack; date
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16/.*K128-V128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
pack; date
T="--filter ^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16 --axis C=16,32,64 --preset peer --min-time 0.2 --min-samples 5"
timeout 170 ./fb $T --out $R/rwkv7.json > $R/rwkv7.log 2>&1; tail -n2 $R/rwkv7.log
pack; date
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K(128|64))' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "local_grads" $R/profile.log
pack; date
