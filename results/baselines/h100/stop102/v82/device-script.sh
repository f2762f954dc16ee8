#!/bin/bash
# Stop 102's prepared call for version 82 (branch v82-no-prefetch: no L2 prefetch of the next chunk's states in
# simple_gla's gradients kernel), carrying build-part-s102/v82ab: the branch plus ab-build.diff beside this
# script (FLA_AB_PREFETCH=1 takes version 81's prefetch in the same binary). The battery over simple_gla's bf16
# fwd+bwd (chunk and fused_recurrent), errors beside version 74's; where no case failed the A/B against 81 (2
# rounds), racecheck over the C = 64 cases the gradients kernel takes, the per-kernel profile, and ncu's
# details of the kernel at 4,4096,16,128 (DRAM bytes). Lands in $OUT/v82ab.tar.xz, packed after each step.
# Run from the repository root after `mkdir p && cp -r results/baselines/h100/stop102-prep
# results/baselines/h200/stop100-prep p/` with results/baselines moved aside (carry limit).
set -u
name=v82ab here=$(dirname "$0")
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
BASE_ENV=FLA_AB_PREFETCH=1 timeout 200 bash scripts/ab-rounds.sh $fb $fb $R/ab 2 --preset peer \
  --filter '^simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --axis C=64 --min-time 0.15 --min-samples 5 \
  --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 16 $R/ab-out.txt; pack; date
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '/simple_gla/chunk/fwdbwd/bf16/.*C64' --out $R/racecheck.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/racecheck.json; pack
timeout 60 $fb --filter '^simple_gla/chunk/fwdbwd/bf16/' --preset peer --axis C=64 --min-time 0.1 \
  --min-samples 5 --out $R/profile-new.json profile > $R/profile-new.log 2>&1; echo "profile rc $?"
grep -E "^simple|grads|fused" $R/profile-new.log | head -20; pack
timeout 90 ncu --set full -k "regex:scalar_grads_wgmma" --launch-count 1 -o /tmp/$name $fb \
  --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j-$name.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/$name.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/$name.ncu-rep --page raw --csv > $R/raw.csv 2>&1; gzip -9f $R/raw.csv
grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued" $R/details.txt | head; pack; date
