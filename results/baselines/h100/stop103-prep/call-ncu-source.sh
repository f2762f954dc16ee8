#!/bin/bash
# Stop 103's prepared call (not run: the session's device time was spent), carrying build-part-s103/main (main
# at 7faae4c: chunk versions 77-85; rebuild: main at that commit or later with no kernel change, `cmake --build
# build`, `../shared/tools/bundle-for-device build/fla-bench build-part-s103/main && xz -T2 -6
# build-part-s103/main/fla-bench`). ncu's SASS source page (stalls by line) of simple_gla's gradients kernel at
# 4,4096,16,64 (where version 86 found the state pass was not what holds a chunk: 1,024-chunk rounds of ~10.6 us
# against 3.5 us of bytes) and at 4,4096,16,128 (version 84's 665 us), and of the one-kernel forward at
# 4,4096,16,128 (0.1924 ms against its 0.192 target). Lands in $OUT/ncusrc.tar.xz, packed after each kernel.
set -u
name=main
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s103/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s103/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-ncusrc; mkdir -p $R; cp "$0" $R/device-script.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
profile() {  # tag, kernel regex, mode, K (= V)
  timeout 150 ncu --set full --import-source yes -k "regex:$2" --launch-count 1 -o /tmp/$1 $fb \
    --filter "^simple_gla/chunk/$3/bf16/" --axis B=4 --axis T=4096 --axis H=16 --axis K=$4 --axis V=$4 \
    --axis C=64 --profile-once --no-check --out /tmp/j-$1.json > $R/$1-ncu.log 2>&1; echo "ncu $1 rc $?"
  ncu --import /tmp/$1.ncu-rep --page details > $R/$1-details.txt 2>&1
  ncu --import /tmp/$1.ncu-rep --page source --csv --print-source sass > $R/$1-source.csv 2>&1
  ncu --import /tmp/$1.ncu-rep --page raw --csv > $R/$1-raw.csv 2>&1; gzip -9f $R/$1-source.csv $R/$1-raw.csv
  grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued" $R/$1-details.txt | head -3
  tar -cJf $OUT/ncusrc.tar.xz -C /tmp out-ncusrc
}
profile grads64 scalar_grads_wgmma fwdbwd 64
profile grads128 scalar_grads_wgmma fwdbwd 128
profile fwd128 scalar_fused_forward fwd 128
date
