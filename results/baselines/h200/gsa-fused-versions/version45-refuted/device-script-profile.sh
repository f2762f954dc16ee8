#!/bin/bash
# stop 67: per-kernel times of gsa's and gla's fp32 fused fwd+bwd at the peer shapes (the fp32 ratios over 2)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/prof; mkdir -p $R
cp run-stop67-profile.sh $R/device-script.sh
./fb profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/fp32/' --preset peer --min-time 0.1 --min-samples 3 --out $R/profile-fp32.json > $R/profile-fp32.log 2>&1; tail -n2 $R/profile-fp32.log
cd $OUT && tar -cJf prof.tar.xz prof && rm -rf prof
