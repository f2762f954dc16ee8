#!/bin/bash
# stop 87's committed build (rwkv7 chunk v70b: the chunked backward in pieces at few heads, the pieces'
# tensor-core reverse scan at 16 columns): the rwkv7 fwd+bwd battery (against s87a's one-piece run), memcheck
# of the few-heads fwd+bwd in pieces (1,8192,16,64: four pieces), rwkv7's bf16 peer rows and the few-heads
# fwd+bwd at 1,{8192,24576},16,64 in bf16 and fp16.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s87f; mkdir -p $R; cp run-s87f.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s87f.tar.xz s87f); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 80 ./fb check --filter 'rwkv7/(fused_recurrent|chunk)/fwdbwd/' --out $R/check-rwkv7-fwdbwd.json > $R/check-rwkv7-fwdbwd.log 2>&1; echo "check rc $?"; tail -n2 $R/check-rwkv7-fwdbwd.log
pack; date
timeout 150 compute-sanitizer --tool memcheck --print-limit 20 ./fb --no-isolate --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/(bf16|fp16)/' --axis B=1 --axis T=8192 --axis H=16 --axis D=64 --min-time 0.001 --min-samples 1 --warmup 0 --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
timeout 200 ./fb --filter '^rwkv7/(fused_recurrent|chunk)/(fwd|fwdbwd)/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $R/rwkv7-peer.json > $R/rwkv7-peer.log 2>&1; echo "peer rc $?"; tail -n1 $R/rwkv7-peer.log
pack; date
timeout 100 ./fb --filter '^rwkv7/(fused_recurrent|chunk)/(fwd|fwdbwd)/(bf16|fp16)/' --axis B=1 --axis T=8192,24576 --axis H=16 --axis D=64 --min-time 0.2 --min-samples 5 --out $R/rwkv7-few-heads.json > $R/rwkv7-few-heads.log 2>&1; echo "few heads rc $?"; tail -n1 $R/rwkv7-few-heads.log
pack; date
