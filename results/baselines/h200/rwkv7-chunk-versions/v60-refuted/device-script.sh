#!/bin/bash
# stop 76: rwkv7 chunk v60 candidate: the local gradients' dW and decayed-a rows made into planes from four
# loads a thread at once (FLA_AB_LOCAL_ROWS_ONE_BY_ONE=1: the committed loop, a load and its stores a pair).
# Battery both ways (bit for bit expected), two A/B rounds of the bf16 fwd+bwd.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s76f; mkdir -p $R; cp run-s76f.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s76f.tar.xz s76f); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'local_grads_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
A="env FLA_AB_LOCAL_ROWS_ONE_BY_ONE=1"; B="env"
K='rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16/'
for x in A B; do timeout 40 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n1 $R/check-$x.log; done
pack
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; done
  pack
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 16 $R/ab.txt
pack
