#!/bin/bash
# stop 77: rwkv7 chunk v61 candidates in the channel kernel (one binary, temporary template switch
# FLA_AB_CHANNEL): 0 = v59 as committed, 1 = v61a (a side's two gradients share the B operand, tile jobs),
# unset = v61a + v61b (dw's piece sums by a half-warp shuffle scan). Batteries of each (every reading
# compared: 0 vs 1 bit for bit expected), registers, then A/B rounds of the bf16 fwd+bwd.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s77a; mkdir -p $R; cp run-s77a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s77a.tar.xz s77a); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'channel_grads_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
nvidia-smi -L > $R/gpu.txt
date
A="env FLA_AB_CHANNEL=0"; M="env FLA_AB_CHANNEL=1"; B="env"
K='rwkv7/(chunk|fused_recurrent)/.*/(bf16|fp16)/'
for x in A M B; do timeout 60 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A M B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log; done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 16 $R/ab.txt
./fb compare --rounds $R/A-1.json $R/M-1.json $R/A-2.json $R/M-2.json > $R/ab-m.txt 2>&1; tail -n 16 $R/ab-m.txt
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
FLA_AB_CHANNEL=0 ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-A.json > $R/profile-A.log 2>&1
grep -h "channel" $R/profile.log $R/profile-A.log
pack; date
