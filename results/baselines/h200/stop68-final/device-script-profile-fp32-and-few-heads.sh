#!/bin/bash
# gsa's and gla's fp32 fused fwd+bwd at 8,1024,8,64 (gsa's ratio 2.05 there) and gsa's bf16/fp32 at 1,24576,16,64, with timelines
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop68-prof; mkdir -p $R; cp run-prof.sh $R/device-script.sh
./fb profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/fp32/B8-T1024|^(gsa|gla)/fused_recurrent/fwdbwd/(bf16|fp32)/B1-T24576' --preset peer --out $R/profile.json > $R/profile.log 2>&1; tail -n1 $R/profile.log
