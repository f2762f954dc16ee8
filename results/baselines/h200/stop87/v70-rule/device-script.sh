#!/bin/bash
# stop 87: rwkv7's chunked backward in pieces at few heads (backward_pieces: 8 from 512 chunks, one a 64 chunks
# below; FLA_AB_BWD_PIECES=N overrides it, 0 = the rule): the rule and 16 pieces against one at 1,24576,16,64,
# the rule and 4 pieces against one at 1,{4096,8192},16,64, bf16 and fp16 fwd+bwd of fused_recurrent and chunk;
# per-launch profiles at 1,24576,16,64 with one piece and with the rule.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s87b; mkdir -p $R; cp run-s87b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s87b.tar.xz s87b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
F='^rwkv7/(fused_recurrent|chunk)/fwdbwd/(bf16|fp16)/'
O='--min-time 0.2 --min-samples 5 --no-check'
for n in 0 16; do
  BASE_ENV=FLA_AB_BWD_PIECES=1 NEW_ENV=FLA_AB_BWD_PIECES=$n timeout 100 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-24576-p$n 2 --filter "${F}B1-T24576" --preset peer $O | tail -n 9
  pack; date
done
for n in 0 4; do
  BASE_ENV=FLA_AB_BWD_PIECES=1 NEW_ENV=FLA_AB_BWD_PIECES=$n timeout 100 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-short-p$n 2 --filter "$F" --axis B=1 --axis T=4096,8192 --axis H=16 --axis D=64 $O | tail -n 13
  pack; date
done
for n in 1 0; do
  FLA_AB_BWD_PIECES=$n timeout 80 ./fb profile --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16/B1-T24576' --preset peer --out $R/profile-p$n.json > $R/profile-p$n.log 2>&1; echo "profile p$n rc $?"
  pack
done
date
