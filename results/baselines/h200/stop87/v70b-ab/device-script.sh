#!/bin/bash
# stop 87: rwkv7 chunk v70b, the pieces' reverse scans at 16 columns a block at few heads (64 blocks instead of
# 128 at 1,24576,16,64, leaving SMs without a scan block to the gradients) by FLA_AB_BWD_COLS16=1, against v70
# (8 columns): A/B of the fwd+bwd at 1,{24576,8192},16,64, bf16 and fp16, fused_recurrent and chunk; its profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s87e; mkdir -p $R; cp run-s87e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s87e.tar.xz s87e); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
F='^rwkv7/(fused_recurrent|chunk)/fwdbwd/(bf16|fp16)/'
BASE_ENV=FLA_AB_BWD_COLS16=0 NEW_ENV=FLA_AB_BWD_COLS16=1 timeout 150 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-cols16 2 --filter "$F" --axis B=1 --axis T=8192,24576 --axis H=16 --axis D=64 --min-time 0.2 --min-samples 5 --no-check | tail -n 13
pack; date
FLA_AB_BWD_COLS16=1 timeout 60 ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B1-T24576' --preset peer --out $R/profile-cols16.json > $R/profile-cols16.log 2>&1; echo "profile rc $?"
pack; date
