#!/bin/bash
# stop 63's final build: issue 3's table (the shared chunk key-gradient kernel gained gsa's flags)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/issue3; mkdir -p $R
date
timeout 500 ./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/fused_recurrent.json > $R/fused_recurrent.log 2>&1; echo "rc=$?"; tail -n1 $R/fused_recurrent.log
date
cd $OUT && tar -cJf issue3.tar.xz issue3 && rm -rf issue3
