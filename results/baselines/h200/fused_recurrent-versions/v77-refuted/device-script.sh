#!/bin/bash
# fused_recurrent version 77: rwkv7's a and b fp32 in the column records at 16 keys a lane (q and k stay packed
# bf16), fewer unpacking instructions a token for more shared-memory reads; against stop 67's issue-3 run
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v77; mkdir -p $R
cp run-v77.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --no-long --filter '/rwkv7/fused_recurrent/' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep FAIL $R/check.log | head
date
for r in 1 2; do ./fb --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/run$r.json > $R/run$r.log 2>&1; ./fb compare stop67-fused.json.xz $R/run$r.json > $R/compare$r.txt 2>&1; grep "rwkv7\|geomean" $R/compare$r.txt | head -14; done
date
cd $OUT && tar -cJf v77.tar.xz v77 && rm -rf v77
