#!/bin/bash
# stop 68's final build (gsa version 46): gsa's fused battery, and gsa's and gla's fused_recurrent on the peer
# shapes (issue 10's per-token target), timed without checks (the battery checks)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/final2; mkdir -p $R; cp run-final2.sh $R/device-script.sh
./fb check --no-long --filter '/gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log; grep FAIL $R/check-gsa.log | head -3
date
timeout 200 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
