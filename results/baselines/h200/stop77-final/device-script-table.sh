#!/bin/bash
# stop 77: rwkv7 chunk v63 candidate on v62's committed build (cc9a9b4): the local gradients' bf16 A_qk
# planes copied 16 bytes a thread, and dW's and a e^{Γe}'s rows read four values a load in the tail
# (FLA_AB_LOCAL=0: v62 as committed, bf16 only; fp16 takes v63 in both). Battery each way, A/B rounds,
# then sanitizers of the candidate and issue 5's run (issue 3's rwkv7 rows) on both builds.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s77c; mkdir -p $R; cp run-s77c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s77c.tar.xz s77c); }
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
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/.*(K128|K64)' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
timeout 120 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/chunk/fwdbwd/(bf16|fp16)/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
T="--filter ^rwkv7/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16 --axis C=16,32,64 --preset peer --min-time 0.2 --min-samples 5"
for x in B A; do timeout 150 ${!x} ./fb $T --out $R/rwkv7-$x.json > $R/rwkv7-$x.log 2>&1; tail -n2 $R/rwkv7-$x.log; pack; done
date
