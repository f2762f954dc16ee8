#!/bin/bash
# stop 78: rwkv7 chunk v66 candidates, host code only: the 16-bit local gradients' launch rule. N
# (FLA_AB_LOCAL=narrow): the 32-column slices' 256-thread kernel (two blocks an SM) everywhere, against the
# one 512-thread block of 64-column slices at K = 128; G (FLA_AB_LOCAL=big): that 512-thread kernel at K = 64
# too, against two 256-thread blocks an SM. Batteries of the bf16 fwd+bwd each way, A/B rounds, profiles.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s78b; mkdir -p $R; cp run-s78b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s78b.tar.xz s78b); }
nvidia-smi -L > $R/gpu.txt
date
A="env"; N="env FLA_AB_LOCAL=narrow"; G="env FLA_AB_LOCAL=big"
K='rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/'
for x in A N G; do timeout 100 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A N G; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log; done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/N-1.json $R/A-2.json $R/N-2.json > $R/ab-narrow.txt 2>&1; tail -n 16 $R/ab-narrow.txt
./fb compare --rounds $R/A-1.json $R/G-1.json $R/A-2.json $R/G-2.json > $R/ab-big.txt 2>&1; tail -n 16 $R/ab-big.txt
$A ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/' --preset peer --out $R/profile-A.json > $R/profile-A.log 2>&1
$N ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-N.json > $R/profile-N.log 2>&1
$G ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(8-T1024|4-T4096-H16-K64)' --preset peer --out $R/profile-G.json > $R/profile-G.log 2>&1
grep -h "local_grads\|^rwkv7" $R/profile-A.log $R/profile-N.log $R/profile-G.log
pack; date
