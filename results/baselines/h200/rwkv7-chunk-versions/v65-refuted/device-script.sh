#!/bin/bash
# stop 78: rwkv7 chunk v65 candidate: the 16-bit local gradients' staging takes a state piece and a token piece
# a thread, both loads issued before either store (FLA_AB_LOCAL=0: v62's committed staging, bf16 only; fp16
# takes v65 in both). Batteries each way, registers and the staging's SASS, A/B rounds, profiles.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s78a; mkdir -p $R; cp run-s78a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s78a.tar.xz s78a); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'local_grads_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
for v in 0 1; do cuobjdump -sass -fun "_ZN8flabench5rwkv734rwkv7_chunk_local_grads_mma_kernelI13__nv_bfloat16Li32ELi64ELi512ELi${v}EEEvNS_8PointersIT_EENS_12GradPointersIS4_EENS0_9ChunkDimsENS0_12IntraOutputsENS0_15BackwardRegionsE" fb 2>&1 | xz > $R/sass-512-v$v.txt.xz; done
nvidia-smi -L > $R/gpu.txt
date
A="env FLA_AB_LOCAL=0"; B="env"
K='rwkv7/(chunk|fused_recurrent)/'
for x in A B; do timeout 100 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
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
