#!/bin/bash
# stop 73, call 1: rwkv7's local gradients (chunk_backward_local_mma.cuh) in one binary, two temporary switches:
#   FLA_AB_OLD_DEAL=1   ProductPhase's deal by the runtime warp count (the committed kernel's), C = 32 only
#   FLA_AB_PREFETCH=1|2 the slice's prior sums asked of L1 after the staging (1) or before it (2)
# bit-for-bit by construction: checks of rwkv7's 16-bit fwd+bwd on the new kernel against stop 70's battery,
# then two A/B rounds, bf16 and fp16 fwd+bwd of fused_recurrent and chunk at the peer shapes.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s73a; mkdir -p $R
cp run-s73a.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
pack() { (cd /tmp && tar -cJf $OUT/s73a.tar.xz s73a); }
date
FLA_AB_PREFETCH=1 ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
pack; date
O="--preset peer --axis C=32 --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/(fused_recurrent|chunk)/fwdbwd/(bf16|fp16)/'
for round in 1 2; do
  FLA_AB_OLD_DEAL=1 ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  ./fb --filter "$F" $O --out $R/deal-$round.json > $R/deal-$round.log 2>&1; tail -n1 $R/deal-$round.log
  FLA_AB_PREFETCH=1 ./fb --filter "$F" $O --out $R/pf1-$round.json > $R/pf1-$round.log 2>&1; tail -n1 $R/pf1-$round.log
  FLA_AB_PREFETCH=2 ./fb --filter "$F" $O --out $R/pf2-$round.json > $R/pf2-$round.log 2>&1; tail -n1 $R/pf2-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/deal-1.json $R/old-2.json $R/deal-2.json > $R/ab-deal.txt 2>&1
./fb compare --rounds $R/deal-1.json $R/pf1-1.json $R/deal-2.json $R/pf1-2.json > $R/ab-pf1.txt 2>&1
./fb compare --rounds $R/deal-1.json $R/pf2-1.json $R/deal-2.json $R/pf2-2.json > $R/ab-pf2.txt 2>&1
tail -n 25 $R/ab-deal.txt $R/ab-pf1.txt $R/ab-pf2.txt
pack; date
