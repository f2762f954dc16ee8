#!/bin/bash
# stop 70: the shapes family's cases planned for an A100's 163 KiB beside the RTX 40xx's 99 KiB; every such
# case, and the memcheck of the 163 KiB ones
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-163KiB; mkdir -p $R
cp run-s70g.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
./fb check --filter 'shared_memory_' --out $R/check-smaller.json > $R/check-smaller.log 2>&1; tail -n2 $R/check-smaller.log
grep FAIL $R/check-smaller.log | head
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'shared_memory_163KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
cd $OUT && tar -cJf stop70-163KiB.tar.xz stop70-163KiB && rm -rf stop70-163KiB
