#!/bin/bash
# stop 77: rwkv7 chunk v64 candidate on the committed build (322c992): the local gradients' decayed keys in one
# trip at C <= 32 (each thread sums the other step's decays itself; no totals pass and its barrier)
# (FLA_AB_LOCAL=0: as committed, bf16 only; fp16 takes v64 in both). Battery each way, A/B rounds, profile,
# issue 5's run on the candidate.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s77e; mkdir -p $R; cp run-s77e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s77e.tar.xz s77e); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'local_grads_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
nvidia-smi -L > $R/gpu.txt
date
A="env FLA_AB_LOCAL=0"; B="env"
K='rwkv7/(chunk|fused_recurrent)/.*/(bf16|fp16)/'
for x in A B; do timeout 60 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log; done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 16 $R/ab.txt
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K(128|64))' --preset peer --out $R/profile-B.json > $R/profile-B.log 2>&1
grep -h "local_grads" $R/profile-B.log
pack; date
timeout 150 ./fb --filter '^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer --min-time 0.2 --min-samples 5 --out $R/rwkv7-B.json > $R/rwkv7-B.log 2>&1; tail -n2 $R/rwkv7-B.log
pack; date
