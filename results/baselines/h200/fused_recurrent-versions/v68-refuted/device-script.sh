#!/bin/bash
# version 68: one block an SM bound for the 16-key one-column plain forward
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v68; mkdir -p $R
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 "fused_recurrent_fwd_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/fused:://g; s/(Pointers.*)//' > $R/resources.txt 2>&1
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -2 $R/check.log
date
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/table.json > $R/table.log 2>&1; tail -2 $R/table.log
date
./fb --filter '^gsa/fused_recurrent/fwd/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-fwd.json > $R/gsa-fwd.log 2>&1; tail -2 $R/gsa-fwd.log
date
cd $OUT && tar -cJf v68.tar.xz v68 && rm -rf v68
