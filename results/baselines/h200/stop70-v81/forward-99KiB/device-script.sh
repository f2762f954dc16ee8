#!/bin/bash
# stop 70, fused_recurrent version 81's last piece: the forward alone at B4 T37 H16 K128 V128 planned for
# 99 KiB (rwkv7's bf16 fused forward there at one column a lane); every 99 KiB case, and their memcheck
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-v81-forward; mkdir -p $R
cp run-s70e.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
./fb check --filter 'shared_memory_99KiB' --out $R/check-99KiB.json > $R/check-99KiB.log 2>&1; tail -n2 $R/check-99KiB.log
grep FAIL $R/check-99KiB.log | head
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '/fwd/.*/shared_memory_99KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
cd $OUT && tar -cJf stop70-v81-forward.tar.xz stop70-v81-forward && rm -rf stop70-v81-forward
