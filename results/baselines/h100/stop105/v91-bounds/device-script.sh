#!/bin/bash
# Stop 104's prepared call (not run: the session's device time was spent) for chunk version 91 (branch
# v91-operands-bounds: the operands pass bound to three blocks an SM, 80 registers, no spill), carrying
# build-part-s105/v91ab: the branch plus ab-build-v91.diff beside this script (FLA_AB_NO_BOUND=1 takes 91
# away: main's operands pass). Build: `git checkout v91-operands-bounds && git apply
# results/baselines/h100/stop104-prep/ab-build-v91.diff && cmake --build build`, then
# `../shared/tools/bundle-for-device build/fla-bench build-part-s105/v91ab && xz -T2 -6
# build-part-s105/v91ab/fla-bench`. Run from the repository root with results/baselines moved aside (the carry
# limit) after `mkdir p && cp -r results/baselines/h100/stop104-prep p/`: `bash p/stop104-prep/call-v91.sh`.
# The battery over gla's and rwkv6's bf16 chunk C = 64 cases with 91 and without (bit for bit expected: the
# same operations, other registers); the A/B at the peer shapes the prepared forward takes (2 rounds); ncu's
# SASS source page of the operands pass at 4,4096,16,128 (gla and rwkv6 forwards), what holds it at 1.4 TB/s
# (kernels/notes/chunk.md, versions 90-91). Lands in $OUT/v91.tar.xz, packed after each step.
set -u
name=v91ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s105/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s105/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v91; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/v91.tar.xz -C /tmp out-v91; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/.*C64'
timeout 100 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
FLA_AB_NO_BOUND=1 timeout 100 $fb check --no-long --filter "$F" --out $R/check-base.json > $R/check-base.log 2>&1
echo "check-base rc $?"; xz -T0 -f $R/check-base.json
python3 scripts/check-error-compare.py $R/check-base.json.xz $R/check.json.xz > $R/check-errors.txt 2>&1
sed -n 1,6p $R/check-errors.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; exit 0; }
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd/bf16/B[24]-T(4096|16384)-H16-K128|fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K) --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_NO_BOUND=1' timeout 120 bash scripts/ab-rounds.sh $fb $fb $R/ab91 2 $A > $R/ab91-out.txt 2>&1
echo "ab91 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab91-out.txt; pack
for op in gla rwkv6; do
  timeout 120 ncu --set full --import-source yes -k "regex:chunk_operands_kernel" --launch-count 1 -o /tmp/$op \
    $fb --filter "^$op/chunk/fwd/bf16/" --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
    --axis C=64 --profile-once --no-check --out /tmp/j-$op.json > $R/ncu-$op.log 2>&1; echo "ncu $op rc $?"
  ncu --import /tmp/$op.ncu-rep --page details > $R/$op-details.txt 2>&1
  ncu --import /tmp/$op.ncu-rep --page source --csv --print-source sass > $R/$op-source.csv 2>&1
  gzip -9f $R/$op-source.csv; grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Registers" $R/$op-details.txt | head -4
  pack
done; date
