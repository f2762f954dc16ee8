#!/bin/bash
# stop 71: decode-size calls (T = 1, B 1 and 8, H 16, D 64 and 128, bf16 forward) of every op's CUDA variants:
# the time a call takes on the GPU and the host's issue time, with and without the L2 flush
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-decode; mkdir -p $R
cp run-s71c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
for D in 64 128; do
  ./fb --filter '/(fused_recurrent|chunk|naive)/fwd/bf16/' --axis T=1 --axis B=1,8 --axis H=16 --axis D=$D --axis M=64 --axis C=64 --min-time 0.2 --out $R/decode-D$D.json > $R/decode-D$D.log 2>&1; tail -n2 $R/decode-D$D.log
  ./fb --filter '/(fused_recurrent|chunk|naive)/fwd/bf16/' --axis T=1 --axis B=1,8 --axis H=16 --axis D=$D --axis M=64 --axis C=64 --min-time 0.2 --no-l2-flush --no-check --out $R/decode-warm-D$D.json > $R/decode-warm-D$D.log 2>&1; tail -n1 $R/decode-warm-D$D.log
done
./fb profile --filter '/(fused_recurrent|chunk)/fwd/bf16/' --axis T=1 --axis B=1 --axis H=16 --axis D=64 --axis M=64 --axis C=64 --out $R/profile-decode.json > $R/profile-decode.log 2>&1; tail -n1 $R/profile-decode.log
# gla's bf16 forward at T = 24576 with 4, 8 and 16 heads (32, 64 and 128 blocks): whether a block's speed
# depends on how many SMs are busy (gsa's pipelined passes run 1.2-1.3x slower beside each other)
./fb profile --filter '^gla/fused_recurrent/fwd/bf16/' --axis T=24576 --axis B=1 --axis H=4,8,16 --axis D=64 --out $R/profile-gla-heads.json > $R/profile-gla-heads.log 2>&1; tail -n1 $R/profile-gla-heads.log
./fb --filter '^gla/fused_recurrent/fwd/bf16/' --axis T=24576 --axis B=1 --axis H=4,8,12,16 --axis D=64 --min-time 0.3 --no-check --out $R/gla-heads.json > $R/gla-heads.log 2>&1; tail -n1 $R/gla-heads.log
./fb profile --filter '^gsa/fused_recurrent/fwd/bf16/' --axis T=24576 --axis B=1 --axis H=4,8,16 --axis D=64 --axis M=64 --out $R/profile-gsa-heads.json > $R/profile-gsa-heads.log 2>&1; tail -n1 $R/profile-gsa-heads.log
date
cd $OUT && tar -cJf stop71-decode.tar.xz stop71-decode && rm -rf stop71-decode
