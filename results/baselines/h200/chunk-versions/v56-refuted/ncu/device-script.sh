#!/bin/bash
# stop 79: ncu reading of simple_gla's fused forward v56 (state and intra warps a chunk apart) at
# 2,16384,16,128 (K = 128, its default) and 1,24576,16,64 (FLA_AB_FUSED=1): why a chunk takes 4-5 us.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s79c; mkdir -p $R; cp run-s79c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s79c.tar.xz s79c); }
nvidia-smi -L > $R/gpu.txt; date
for shape in "B=2 T=16384 D=128" "B=1 T=24576 D=64"; do
  set -- $shape; tag=${1#B=}-${2#T=}-${3#D=}
  FLA_AB_FUSED=1 timeout 200 ncu --set full --import-source yes -k "regex:scalar_fused" --launch-count 1 -o /tmp/f-$tag ./fb --filter "^simple_gla/chunk/fwd/bf16" --axis $1 --axis $2 --axis H=16 --axis $3 --axis C=64 --profile-once --no-check --out /tmp/j-$tag.json > $R/ncu-$tag.log 2>&1; echo "ncu $tag rc $?"; tail -n 3 $R/ncu-$tag.log
  ncu --import /tmp/f-$tag.ncu-rep --page details > $R/fused-$tag-details.txt 2>&1
  ncu --import /tmp/f-$tag.ncu-rep --page source --csv --print-source sass > $R/fused-$tag-source.csv 2>&1; gzip -9 $R/fused-$tag-source.csv
  pack; date
done
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occupancy|L2 Hit|DRAM Through|Compute \(SM\) Thr|Memory Thr" $R/*details.txt | head -40
