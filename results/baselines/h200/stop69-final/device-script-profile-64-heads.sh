#!/bin/bash
# stop 69: per-kernel profile with launch timelines of gsa's and gla's fp32 fused fwd+bwd at the two 64-head
# D = 64 shapes (issue 10's fp32 ratios over 2 after gla's chunk-form backward took 3xTF32): the next reading
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/p; mkdir -p $R; cp run-p.sh $R/device-script.sh
./fb profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/fp32/B(8-T1024|4-T4096-H16-K64)' --preset peer --out $R/profile-gsa-gla-fp32-64-heads.json > $R/profile-gsa-gla-fp32-64-heads.log 2>&1; tail -n1 $R/profile-gsa-gla-fp32-64-heads.log
cd $OUT && tar cJf p.tar.xz p && rm -rf p
