#!/bin/bash
# stop 67's final kernels (chunk version 51, gsa version 44): issue 3's table
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/table; mkdir -p $R
cp run-stop67-table.sh $R/device-script.sh
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/fused_recurrent.json > $R/fused_recurrent.log 2>&1; tail -n2 $R/fused_recurrent.log
cd $OUT && tar -cJf table.tar.xz table && rm -rf table
