#!/bin/bash
# stop 75: rwkv7 chunk v54 candidate: the state passes (the chunk forward's and the reverse scan, which
# fused_recurrent's fwd+bwd runs too) at 16 value columns a block where the rule gives 32 (K = 128 on the
# tensor cores), behind FLA_EXP_STATE_COLS=1. Checks with it on, A/B rounds, profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75d; mkdir -p $R
cp run-s75d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s75d.tar.xz s75d); }
date
FLA_EXP_STATE_COLS=1 timeout 150 ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/.*/bf16/' --out $R/check-cols16.json > $R/check-cols16.log 2>&1; tail -n2 $R/check-cols16.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)|^rwkv7/chunk/(fwd|fwdbwd)/bf16/B(2-T16384|4-T4096-H16-K128).*/C32'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_EXP_STATE_COLS=1 ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 14 $R/ab.txt
FLA_EXP_STATE_COLS=1 ./fb profile --filter '^rwkv7/(fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)|chunk/fwd/bf16/B(2-T16384|4-T4096-H16-K128).*/C32)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "states\|^rwkv7" $R/profile.log
pack; date
