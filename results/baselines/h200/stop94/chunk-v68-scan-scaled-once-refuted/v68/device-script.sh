#!/bin/bash
# stop 94, call b (carries build-part-b: chunk version 68, simple_gla's scalar-gate scan scaling each stage's
# k / q once in shared memory), with build-part-a/fb (the committed kernels) from call a still on the machine:
# the battery of simple_gla's chunk and fused variants on both builds (bit for bit expected), two A/B rounds of
# simple_gla's bf16 chunk forward (C = 32, 64), chunk and fused fwd+bwd (C = 64) at the peer shapes, the
# per-kernel profile of the forward on both builds, and ncu of the new scan at 2,16384,16,128 C = 64.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-a
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s94b; mkdir -p $R; cp run-b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s94b.tar.xz s94b); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call a's build-part-a/fb is gone: a fresh machine"; exit 3; }
date
timeout 330 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/simple_gla/(chunk|fused_recurrent)/' base \
  --filter '^simple_gla/chunk/fwd/bf16/|^simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --axis C=32,64 --preset peer \
  --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
grep -E "cases:" $R/check-*.log | tail -2; head -6 $R/check-errors.txt; pack
date
for side in base new; do
  bin=./fb; [ $side = base ] && bin=$B/fb
  timeout 60 $bin --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' --preset peer --axis C=64 --min-time 0.1 --min-samples 5 \
    --out $R/profile-$side.json profile > $R/profile-$side.log 2>&1; echo "profile $side rc $?"
  grep -E "^simple|scan|output|grads" $R/profile-$side.log | head -60
done
pack; date
S="--axis B=2 --axis T=16384 --axis H=16 --axis D=128 --axis C=64 --profile-once --no-check"
timeout 100 ncu --set full --import-source yes -k "regex:chunk_scan_kernel" --launch-count 1 -o /tmp/n-scan ./fb \
  --filter "^simple_gla/chunk/fwd/bf16/" $S --out /tmp/j-scan.json > $R/ncu-scan.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/n-scan.ncu-rep --page details > $R/details-scan.txt 2>&1; xz -T8 -k $R/details-scan.txt
ncu --import /tmp/n-scan.ncu-rep --page source --csv --print-source sass > $R/source-scan.csv 2>&1; gzip -9 $R/source-scan.csv
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Executed Instructions  |DRAM Throughput|Block Limit" $R/details-scan.txt | head -20
pack; date
