#!/bin/bash
# stop 70, fused_recurrent version 82: blocks of 4 warps where 8 do not fit the room (after one column a
# lane), so a 99 KiB GPU runs rwkv7's fp16 forward at K = 128. The whole battery, memcheck of every 99 KiB
# fused case, the CLI tests, and the four ops' fused bf16 times on the peer shapes (no Hopper layout changed)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-v82; mkdir -p $R
cp run-s70f.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '/fused_recurrent/.*/shared_memory_99KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; tail -n3 $R/gpu-cli-tests.log
date
./fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/fused-peer.json > $R/fused-peer.log 2>&1; tail -n1 $R/fused-peer.log
date
cd $OUT && tar -cJf stop70-v82.tar.xz stop70-v82 && rm -rf stop70-v82
