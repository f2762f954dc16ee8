#!/bin/bash
# stop 70, gsa version 48: a 16-bit fwd+bwd never runs the gla passes' own backward (p and dz would reach
# gla's kernels rounded), so gsa's battery again with the 99 KiB cases, their memcheck, and gsa's fused
# bf16 and fp32 times on the peer shapes (no peer shape's path changed: they should read the same)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-gsa48; mkdir -p $R
cp run-s70b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --filter '/gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log
grep FAIL $R/check-gsa.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'shapes/gsa/.*/shared_memory_99KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
./fb --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/(bf16|fp32)/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/gsa-peer.json > $R/gsa-peer.log 2>&1; tail -n1 $R/gsa-peer.log
date
cd $OUT && tar -cJf stop70-gsa48.tar.xz stop70-gsa48 && rm -rf stop70-gsa48
