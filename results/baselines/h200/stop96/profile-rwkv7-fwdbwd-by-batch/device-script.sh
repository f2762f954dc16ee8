#!/bin/bash
# stop 96, call e: rwkv7's bf16 fused fwd+bwd per kernel at T1024 H8 D64 with B = 6..10 (the channel kernel's
# (chunks, heads) grid is 5.17 waves of three blocks an SM at B = 8: whether its time follows the waves)
cd build-part-s96/base; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s96e; mkdir -p $R; cp e.sh $R/device-script.sh
timeout 200 ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/' --axis B=6,7,8,9,10 --axis T=1024 --axis H=8 --axis D=64 --min-time 0.1 --min-samples 5 --out $R/profile.json > $R/profile.log 2>&1; echo "profile rc $?"
grep -E 'B[0-9]+-T1024|channel|local|intra|states|fwd_kernel' $R/profile.log | head -60
tar -cJf $OUT/s96e.tar.xz -C /tmp s96e
