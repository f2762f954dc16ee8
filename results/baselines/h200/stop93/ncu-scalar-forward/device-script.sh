#!/bin/bash
# stop 93, call d (carries build-part-g: the committed kernels): a reading, no change. ncu (full set, SASS
# source) of simple_gla's bf16 chunk forward at 2,16384,16,128, C = 64, one launch each: the scalar output
# kernel and the scalar-gate scan (version 64, the pair kernel, halved their bytes and lost: h200/stop93/
# chunk-v64-scalar-pairs-refuted/; what bounds the output kernel at 2.6 TB/s of the 4.1 measured?).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s93d; mkdir -p $R; cp run-s93d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s93d.tar.xz s93d); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
S="--axis B=2 --axis T=16384 --axis H=16 --axis D=128 --axis C=64 --profile-once --no-check"
for job in "output scalar_chunk_output_kernel" "scan chunk_scan_kernel"; do
  set -- $job; tag=$1
  timeout 150 ncu --set full --import-source yes -k "regex:$2" --launch-count 1 -o /tmp/n-$tag ./fb --filter "^simple_gla/chunk/fwd/bf16/" $S --out /tmp/j-$tag.json > $R/ncu-$tag.log 2>&1; echo "ncu $tag rc $?"; tail -n 2 $R/ncu-$tag.log
  ncu --import /tmp/n-$tag.ncu-rep --page details > $R/details-$tag.txt 2>&1; xz -T8 -k $R/details-$tag.txt
  ncu --import /tmp/n-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1; gzip -9 $R/source-$tag.csv
  pack; date
done
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occupancy|Executed Instructions  |DRAM Throughput|Block Limit|Dynamic Shared" $R/details-*.txt | head -40
