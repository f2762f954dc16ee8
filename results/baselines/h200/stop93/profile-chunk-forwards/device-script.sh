#!/bin/bash
# stop 93, call b (carries build-part-g: gsa version 63's build = the committed kernels): the per-kernel map
# of the chunk forwards (gla, simple_gla, bf16, C = 64, the peer shapes): where the D = 128 forwards' time and
# DRAM bytes go (simple_gla's is 0.55x FLA's at 2,16384,16,128 on stop 81's H100 table).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s93b; mkdir -p $R; cp run-s93b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
timeout 400 ./fb --filter '^(gla|simple_gla)/chunk/fwd/bf16/' --preset peer --axis C=64 --min-time 0.1 \
  --min-samples 5 --out $R/profile.json profile > $R/profile.log 2>&1; echo "profile rc $?"; cat $R/profile.log | head -150
(cd /tmp && tar -cJf $OUT/s93b.tar.xz s93b); date
