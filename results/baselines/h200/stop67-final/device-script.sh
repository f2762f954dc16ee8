#!/bin/bash
# stop 67's committed build (chunk version 51, gsa version 44, the state threshold 1e-4 for 16-bit inputs):
# the whole battery; gsa's and gla's fused_recurrent at the peer shapes (issue 10's per-token target)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop67; mkdir -p $R
cp run-stop67final.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head -20
date
./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n2 $R/gsa-gla-peer.log
date
cd $OUT && tar -cJf stop67.tar.xz stop67 && rm -rf stop67
