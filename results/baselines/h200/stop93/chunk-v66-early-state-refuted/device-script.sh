#!/bin/bash
# stop 93, call f-b (carries build-part-h: chunk version 66, simple_gla's scalar output kernel loading its first state
# fragments early), with build-part-g/fb (the committed kernels) from call f-a still on the machine: the battery of
# simple_gla's chunk and fused variants against version 60's readings (bit for bit expected), two A/B rounds
# of simple_gla's bf16 chunk forward (C = 32, 64) and fwd+bwd (C = 64) at the peer shapes, the per-kernel
# profile of the forward, and ncu (launch statistics, occupancy, stalls) of the output kernel at 2,16384,16,128.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-g
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s93f; mkdir -p $R; cp run-s93f-b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call f-a's build-part-g/fb is gone: a fresh machine"; exit 3; }
date
timeout 300 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/simple_gla/(chunk|fused_recurrent)/' check-v60.json.xz \
  --filter '^simple_gla/chunk/fwd/bf16/|^simple_gla/chunk/fwdbwd/bf16/.*/C64' --axis C=32,64 --preset peer \
  --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
grep -E "cases:" $R/check-new.log | tail -1; head -4 $R/check-errors.txt
date
timeout 60 ./fb --filter '^simple_gla/chunk/fwd/bf16/' --preset peer --axis C=32,64 --min-time 0.1 --min-samples 5 \
  --out $R/profile.json profile > $R/profile.log 2>&1; echo "profile rc $?"; grep -E "^simple|scan|output" $R/profile.log
S="--axis B=2 --axis T=16384 --axis H=16 --axis D=128 --axis C=64 --profile-once --no-check"
timeout 90 ncu --set full --import-source yes -k "regex:scalar_chunk_output_kernel" --launch-count 1 -o /tmp/n-output \
  ./fb --filter "^simple_gla/chunk/fwd/bf16/" $S --out /tmp/j.json > $R/ncu-output.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/n-output.ncu-rep --page details > $R/details-output.txt 2>&1
ncu --import /tmp/n-output.ncu-rep --page source --csv --print-source sass > $R/source-output.csv 2>&1; gzip -9 $R/source-output.csv
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Block Limit (Reg|Shared)|Shared Memory Configuration" $R/details-output.txt
(cd /tmp && tar -cJf $OUT/s93f.tar.xz s93f); date
