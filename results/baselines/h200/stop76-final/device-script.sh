#!/bin/bash
# stop 76's final build (rwkv7 chunk v57 in the committed form): the rwkv7 16-bit battery (compared with
# s76a's v57 configuration), then issue 5's run (rwkv7 chunk at C = 16, 32, 64 beside its fused_recurrent,
# bf16, peer shapes, checked), whose fused_recurrent cases are issue 3's rwkv7 rows; its profile at K = 128.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s76c; mkdir -p $R; cp run-s76c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s76c.tar.xz s76c); }
date
timeout 100 ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/.*/(bf16|fp16)/' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
pack; date
timeout 300 ./fb --filter '^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer --min-time 0.2 --min-samples 5 --out $R/rwkv7.json > $R/rwkv7.log 2>&1; tail -n3 $R/rwkv7.log
pack; date
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "channel\|^rwkv7" $R/profile.log
pack; date
