#!/bin/bash
# version 70: converters beside every form's forward at 4 keys a lane (battery, issue-3 run, gsa's forward)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v70; mkdir -p $R
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
date
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/table.json > $R/table.log 2>&1; tail -n2 $R/table.log
date
./fb --filter '^gsa/fused_recurrent/fwd/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-fwd.json > $R/gsa-fwd.log 2>&1; tail -n2 $R/gsa-fwd.log
date
cd $OUT && tar -cJf v70.tar.xz v70 && rm -rf v70
