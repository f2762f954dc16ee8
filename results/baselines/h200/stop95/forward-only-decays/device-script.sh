#!/bin/bash
# stop 95: the battery's new forward-only decay cases (B2 T37 H16 K128 V128, every decay scenario, every
# variant with a backward, every dtype and chunk size) on the committed kernels.
cd build-part-s95; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/forward-only-decays; mkdir -p $R
cp run2.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
timeout 400 ./fb --filter '_forward_only$' check --out $R/check.json > $R/check.log 2>&1; echo "check rc $?"
tail -n 12 $R/check.log
xz -T0 $R/check.json
tar -cJf $OUT/forward-only.tar.xz -C /tmp forward-only-decays
