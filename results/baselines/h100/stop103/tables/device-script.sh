#!/bin/bash
# Stop 103's second call (after call-v86.sh, on the same machine if it stays warm), carrying
# build-part-s103/v86: the branch's head as it would merge (chunk versions 77-86, no switches). Issue 4's table
# (bf16 chunk fwd and fwd+bwd of gla, rwkv6 and simple_gla, C = 16, 32, 64, the peer shapes); racecheck and
# synccheck over the three ops' bf16 C = 64 chunk fwd and fwd+bwd cases at 16 and 48 heads (83 brings stop 100's
# forward changes, 85 moved a warp's work across a barrier, 86 a partial sum's writer); ncu of simple_gla's
# gradients kernel at 4,4096,16,128 (DRAM bytes against stop 102's 0.82 GB with version 82). Lands in
# $OUT/v86clean.tar.xz, packed after each step.
set -u
name=v86
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s103/$name/lib $dir/
xz -T0 -dc build-part-s103/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v86clean; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/v86clean.tar.xz -C /tmp out-v86clean; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 200 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.2 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
S='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 110 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done
timeout 60 ncu --section SpeedOfLight --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct -k "regex:scalar_grads_wgmma" \
  --launch-count 1 $fb --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 \
  --axis K=128 --axis V=128 --axis C=64 --profile-once --no-check --out /tmp/j-ncu.json > $R/ncu.txt 2>&1
echo "ncu rc $?"; grep -E "dram__bytes_read.sum|Duration|Warp Cycles Per Issued" $R/ncu.txt; pack; date
