#!/bin/bash
# Stop 101's prepared call B: usage call-grads-tools.sh NAME (carry build-part-s101/NAME: v77, v78 or v79), after
# call A found no failed case: memcheck, synccheck and racecheck over the simple_gla bf16 fwd+bwd cases the
# gradients kernel takes (C = 64), and ncu's details and SASS source page of the kernel at 4,4096,16,128.
# Lands in $OUT/NAME-tools.tar.xz.
set -u
name=$1
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s101/$name/lib $dir/
xz -T0 -dc build-part-s101/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name-tools; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name-tools.tar.xz -C /tmp out-$name-tools; }
$fb --version; date
F='/simple_gla/chunk/fwdbwd/bf16/.*C64'
for tool in memcheck synccheck racecheck; do
  timeout 130 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$F" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done
timeout 90 ncu --set full --import-source yes -k "regex:scalar_grads_wgmma" --launch-count 1 -o /tmp/$name $fb \
  --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j-$name.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/$name.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/$name.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1; gzip -9f $R/source.csv
grep -E "Duration|DRAM Throughput|Registers Per|Warp Cycles Per Issued|Achieved Occupancy" $R/details.txt | head
pack; date
