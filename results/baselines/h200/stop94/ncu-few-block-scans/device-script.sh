#!/bin/bash
# stop 94, call g (carries build-part-e: the committed kernels with chunk version 69): a reading, no change.
# ncu (full set, SASS source) of the forward scan at 1,24576,16,64, C = 64, one launch each of gla's bf16
# general scan and simple_gla's scalar scan: where a few-block scan's step goes once no block-wide barrier
# holds it (version 69 took these 0.81-0.87x).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s94g; mkdir -p $R; cp run-g.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s94g.tar.xz s94g); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
S="--axis B=1 --axis T=24576 --axis H=16 --axis D=64 --axis C=64 --profile-once --no-check"
for op in gla simple_gla; do
  timeout 100 ncu --set full --import-source yes -k "regex:chunk_scan_kernel" --launch-count 1 -o /tmp/n-$op ./fb \
    --filter "^$op/chunk/fwd/bf16/" $S --out /tmp/j-$op.json > $R/ncu-$op.log 2>&1; echo "ncu $op rc $?"
  ncu --import /tmp/n-$op.ncu-rep --page details > $R/details-$op.txt 2>&1; xz -T8 $R/details-$op.txt
  ncu --import /tmp/n-$op.ncu-rep --page source --csv --print-source sass > $R/source-$op.csv 2>&1; gzip -9 $R/source-$op.csv
  xz -dc $R/details-$op.txt.xz | grep -E "Duration|Issued Ipc|Warp Cycles Per Issued|Executed Instructions  |DRAM Throughput|Achieved Occupancy"
  pack
done
date
