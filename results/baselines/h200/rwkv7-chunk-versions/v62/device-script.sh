#!/bin/bash
# stop 77: rwkv7 chunk v62 candidate on v61's committed build (12289fa): the local gradients' S and dS staged
# a thread a 16-column piece (S . dS over a row's pieces by shuffles) instead of a thread a row
# (FLA_AB_LOCAL=0: the committed staging, bf16 only; fp16 takes v62 in both). Batteries each way with fp32
# (v61's dw on fp32 first checked here), registers, A/B rounds, profiles.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s77b; mkdir -p $R; cp run-s77b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s77b.tar.xz s77b); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'local_grads_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
nvidia-smi -L > $R/gpu.txt
date
A="env FLA_AB_LOCAL=0"; B="env"
K='rwkv7/(chunk|fused_recurrent)/'
for x in A B; do timeout 90 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log; done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 16 $R/ab.txt
for x in A B; do ${!x} ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K(128|64))' --preset peer --out $R/profile-$x.json > $R/profile-$x.log 2>&1; done
grep -h "local_grads" $R/profile-A.log $R/profile-B.log
pack; date
