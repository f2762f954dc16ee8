#!/bin/bash
# stop 88: stop 87's final build (11852bf: rwkv7 chunk v71 + the review's run_in_pieces/pieced_scan_columns
# refactor) on a GPU for the first time: the rwkv7 fwd+bwd battery (bit for bit against v70b-final's), the rwkv7
# chunk bf16 battery (bit for bit against v71-ab's switch-on run), memcheck of the pieced forward and backward at
# 1,8192,16,64, and the few-heads rows at 1,{8192,24576},16,64.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s88a; mkdir -p $R; cp run-s88a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s88a.tar.xz s88a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 80 ./fb check --filter 'rwkv7/(fused_recurrent|chunk)/fwdbwd/' --out $R/check-rwkv7-fwdbwd.json > $R/check-rwkv7-fwdbwd.log 2>&1; echo "check rc $?"; tail -n2 $R/check-rwkv7-fwdbwd.log
python3 ../scripts/check-error-compare.py ref-fwdbwd.json $R/check-rwkv7-fwdbwd.json > $R/check-errors-vs-v70b.txt 2>&1; head -n 4 $R/check-errors-vs-v70b.txt
pack; date
timeout 60 ./fb check --filter 'rwkv7/chunk/.*/bf16/' --out $R/check-chunk-bf16.json > $R/check-chunk-bf16.log 2>&1; echo "check rc $?"; tail -n2 $R/check-chunk-bf16.log
python3 ../scripts/check-error-compare.py ref-chunk-bf16.json $R/check-chunk-bf16.json > $R/check-errors-vs-v71.txt 2>&1; head -n 4 $R/check-errors-vs-v71.txt
pack; date
timeout 150 compute-sanitizer --tool memcheck --print-limit 20 ./fb --no-isolate --filter '^rwkv7/chunk/(fwd|fwdbwd)/bf16/' --axis B=1 --axis T=8192 --axis H=16 --axis D=64 --min-time 0.001 --min-samples 1 --warmup 0 --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
timeout 100 ./fb --filter '^rwkv7/(fused_recurrent|chunk)/(fwd|fwdbwd)/(bf16|fp16)/' --axis B=1 --axis T=8192,24576 --axis H=16 --axis D=64 --min-time 0.2 --min-samples 5 --out $R/rwkv7-few-heads.json > $R/rwkv7-few-heads.log 2>&1; echo "few heads rc $?"; tail -n1 $R/rwkv7-few-heads.log
pack; date
