#!/bin/bash
# stop 80: rwkv7 chunk v69 candidate: the 512-thread local-gradients kernel keeps the value slices' sums of
# dW, dO S^T, v dS^T and V_new dS^T in shared memory between slices (FLA_AB_HOLD=1; bf16, K = 128, V = 128).
# Batteries both ways (bit for bit expected), racecheck of the held kernel, two A/B rounds, profiles.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s80c; mkdir -p $R; cp run-s80c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s80c.tar.xz s80c); }
nvidia-smi -L > $R/gpu.txt
A="env"; B="env FLA_AB_HOLD=1"
timeout 45 $A ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16/' --out $R/check-A.json > $R/check-A.log 2>&1; grep 'cases:' $R/check-A.log
timeout 45 $B ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16/' --out $R/check-B.json > $R/check-B.log 2>&1; grep 'cases:' $R/check-B.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)|^rwkv7/chunk/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128).*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; done
  pack
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 12 $R/ab.txt
pack; date
for x in A B; do ${!x} ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-$x.json > $R/profile-$x.log 2>&1; done
grep -h "local_grads" $R/profile-A.log $R/profile-B.log
pack; date
$B timeout 150 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/chunk/fwdbwd/bf16/.*K128-V128/C32' --out $R/racecheck-B.json > $R/racecheck-B.log 2>&1; tail -n3 $R/racecheck-B.log
pack; date
