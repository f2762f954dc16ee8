#!/bin/bash
# Stop 102's call for version 80 (branch v80-grads-epilogue: the gradients kernel's epilogues by ldmatrix and
# stmatrix), carrying build-part-s102/v80, on the machine stop 101's call-grads.sh v79ab left warm (its binary
# in /tmp/v79ab: version 79's backward without FLA_AB_OLD_BWD). The battery over simple_gla's bf16 fwd+bwd
# (chunk and fused_recurrent), errors beside version 74's; where no case failed the A/B against 79 (2 rounds),
# then memcheck, synccheck and racecheck over the C = 64 cases the gradients kernel takes, and ncu's details of
# the kernel at 4,4096,16,128. Lands in $OUT/v80.tar.xz, packed after each step.
set -u
name=v80 here=$(dirname "$0")
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s102/$name/lib $dir/
xz -T0 -dc build-part-s102/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name.tar.xz -C /tmp out-$name; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 150 $fb check --no-long --filter '/simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; grep -iE " fail" $R/check.log | head -20
xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py $here/../stop100-prep/v74-check.json.xz $R/check.json.xz \
  > $R/check-errors.txt 2>&1; head -12 $R/check-errors.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed or hung: no timing (see check.log)"; exit 0; }
if [ -x /tmp/v79ab/fb ]; then
  LD_LIBRARY_PATH=/tmp/v79ab/lib timeout 200 bash scripts/ab-rounds.sh /tmp/v79ab/fb $fb $R/ab 2 --preset peer \
    --filter '^simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --axis C=64 --min-time 0.15 --min-samples 5 \
    --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 16 $R/ab-out.txt
else echo "no /tmp/v79ab: the machine went cold between calls, no A/B"; fi
pack; date
F='/simple_gla/chunk/fwdbwd/bf16/.*C64'
for tool in memcheck synccheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$F" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done
timeout 90 ncu --set full -k "regex:scalar_grads_wgmma" --launch-count 1 -o /tmp/$name $fb \
  --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j-$name.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/$name.ncu-rep --page details > $R/details.txt 2>&1
grep -E "Duration|DRAM Throughput|Registers Per|Warp Cycles Per Issued|Achieved Occupancy" $R/details.txt | head
pack; date
