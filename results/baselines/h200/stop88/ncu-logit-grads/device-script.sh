#!/bin/bash
# stop 88: a reading, no change: ncu of gsa chunk's logit gradients (chunk_logit_grads_kernel) in the fused
# fwd+bwd, fp32 and bf16, at 8,1024,8,64 and 4,4096,16,64 (issue 10's 64-head cells), full set with source,
# one launch each; the details and the SASS source pages (scripts/ncu-source-regions.py reads them).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s88e; mkdir -p $R; cp run-s88e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s88e.tar.xz s88e); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
for dt in fp32 bf16; do
  for shape in "B=8 T=1024 H=8" "B=4 T=4096 H=16"; do
    set -- $shape; tag=$dt-${1#B=}-${2#T=}
    timeout 120 ncu --set full --import-source yes -k "regex:chunk_logit_grads" --launch-count 1 -o /tmp/lg-$tag ./fb --filter "^gsa/fused_recurrent/fwdbwd/$dt/" --axis $1 --axis $2 --axis $3 --axis D=64 --axis M=64 --profile-once --no-check --out /tmp/j-$tag.json > $R/ncu-$tag.log 2>&1; echo "ncu $tag rc $?"; tail -n 2 $R/ncu-$tag.log
    ncu --import /tmp/lg-$tag.ncu-rep --page details > $R/details-$tag.txt 2>&1
    ncu --import /tmp/lg-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1; gzip -9 $R/source-$tag.csv
    pack
  done
done
date
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared" $R/details-*.txt | head -60
