#!/bin/bash
# stop 76: rwkv7 chunk v59 candidate: the channel kernel's pair planes made from eight loads a thread at once
# (FLA_AB_PAIRS_ONE_BY_ONE=1: v57's loop, a load and its stores a pair, as committed). Battery both ways (every
# reading compared: bit for bit expected), A/B rounds, then with v59 on: issue 3's rwkv7 rows and the profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s76e; mkdir -p $R; cp run-s76e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s76e.tar.xz s76e); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'channel_grads_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
A="env FLA_AB_PAIRS_ONE_BY_ONE=1"; B="env"
K='rwkv7/(chunk|fused_recurrent)/.*/bf16/'
for x in A B; do timeout 60 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log; done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 16 $R/ab.txt
timeout 100 ./fb --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $R/fused-rwkv7.json > $R/fused-rwkv7.log 2>&1; tail -n2 $R/fused-rwkv7.log
pack; date
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "channel\|^rwkv7" $R/profile.log
pack; date
