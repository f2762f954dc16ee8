#!/bin/bash
# fused_recurrent version 75, the committed build (no switch): battery, sanitizers on the 8-warp forwards,
# the issue-3 table
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v75final; mkdir -p $R
cp run-v75final.sh $R/device-script.sh
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf v75final.tar.xz v75final; exit 1; }
date
F='(rwkv7|rwkv6)/fused_recurrent/fwdbwd/(bf16|fp32|fp16)/B4-T37-H16-K64-V64/many_heads'
compute-sanitizer --tool memcheck ./fb check --filter "$F" > $R/memcheck.log 2>&1; tail -n 4 $R/memcheck.log
compute-sanitizer --tool racecheck ./fb check --filter "(rwkv7|rwkv6)/fused_recurrent/fwdbwd/(bf16|fp32)/B4-T37-H16-K64-V64/many_heads" > $R/racecheck.log 2>&1; tail -n 4 $R/racecheck.log
date
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/fused_recurrent.json > $R/fused_recurrent.log 2>&1; tail -n 3 $R/fused_recurrent.log
date
cd $OUT && tar -cJf v75final.tar.xz v75final && rm -rf v75final
