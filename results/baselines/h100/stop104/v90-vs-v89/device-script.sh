#!/bin/bash
# Stop 104's fourth call, on the machine of call-v90a.sh while warm, carrying build-part-s104/v90ab (its
# switches as there): the A/B of 90 against 89 (FLA_AB_TILE32=1 takes 90 away) at the peer shapes the
# prepared forward takes, and the per-kernel profile of 90 at K = 128. Lands in $OUT/v90b.tar.xz.
set -u
name=v90ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s104/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s104/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v90b; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/v90b.tar.xz -C /tmp out-v90b; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd/bf16/B[24]-T(4096|16384)-H16-K128|fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K) --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_TILE32=1' timeout 100 bash scripts/ab-rounds.sh $fb $fb $R/ab90-89 2 $A \
  > $R/ab90-89-out.txt 2>&1; echo "ab90-89 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab90-89-out.txt; pack
timeout 70 $fb --filter '^(gla|rwkv6)/chunk/fwd/bf16/B[24]-T(4096|16384)-H16-K128' --preset peer \
  --axis C=64 --min-time 0.1 --min-samples 5 --out $R/profile.json profile > $R/profile.log 2>&1
echo "profile rc $?"; grep -E "^(gla|rwkv6)|operands|prepared_fused" $R/profile.log | head -40; xz -T0 -f $R/profile.json; pack
date
