#!/bin/bash
# Stop 100 call 4 (carry build-part-s100/main): ncu --set full of version 71 (simple_gla's one-kernel forward)
# at 2,16384,16,128, where it takes 0.615 ms (H200) against a 0.358 ms target.
if [ ! -x /tmp/mainfb/fb ]; then mkdir -p /tmp/mainfb; cp -r build-part-s100/main/lib /tmp/mainfb/
  xz -T0 -dc build-part-s100/main/fla-bench.xz > /tmp/mainfb/fb; chmod +x /tmp/mainfb/fb; fi
export LD_LIBRARY_PATH=/tmp/mainfb/lib; fb=/tmp/mainfb/fb
R=/tmp/s100d; mkdir -p $R; cp s100/call4.sh $R/device-script.sh; nvidia-smi --query-gpu=name --format=csv,noheader
timeout 120 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 -o /tmp/v71 $fb \
  --filter '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 --axis V=128 --axis C=64 \
  --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1; echo "ncu rc $?"; tail -3 $R/ncu.log
ncu --import /tmp/v71.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/v71.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1; gzip -9 $R/source.csv
grep -E "Duration|DRAM Throughput|Registers Per|Grid Size|Warp Cycles Per Issued|Achieved Occ" $R/details.txt | head
tar -cJf $OUT/s100d.tar.xz -C /tmp s100d
