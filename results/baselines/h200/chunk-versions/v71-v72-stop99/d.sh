#!/bin/bash
# Stop 99 call D: a reading of version 72 (per_key_fused_forward_kernel): ncu full set with source, one launch,
# gla bf16 fwd 4,4096,16,64 (K = 64) and rwkv6 bf16 fwd 4,4096,16,128 (K = 128), both at C = 64.
mkdir -p /tmp/newfb; cp -r build-part-s98/new2/lib /tmp/newfb/
xz -T0 -dc build-part-s98/new2/fla-bench.xz > /tmp/newfb/fb; chmod +x /tmp/newfb/fb
export LD_LIBRARY_PATH=/tmp/newfb/lib; fb=/tmp/newfb/fb
R=/tmp/s99d; mkdir -p $R
pack() { (cd /tmp && tar -cJf $OUT/s99d.tar.xz s99d); }
date
for c in "gla 64" "rwkv6 128"; do
  set -- $c; tag=$1-$2
  timeout 150 ncu --set full --import-source yes -k "regex:per_key_fused_forward" --launch-count 1 -o /tmp/pk-$tag \
    $fb --filter "^$1/chunk/fwd/bf16/" --axis B=4 --axis T=4096 --axis H=16 --axis K=$2 --axis V=$2 --axis C=64 \
    --profile-once --no-check --out /tmp/j-$tag.json > $R/ncu-$tag.log 2>&1; echo "ncu $tag rc $?"; tail -n 2 $R/ncu-$tag.log
  ncu --import /tmp/pk-$tag.ncu-rep --page details > $R/details-$tag.txt 2>&1
  ncu --import /tmp/pk-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1; gzip -9 $R/source-$tag.csv
  pack
done
date
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Compute \(SM\) Th|Memory Th" $R/details-*.txt | head -30
