#!/bin/bash
# stop 75: rwkv7 chunk v56 candidate: the forward state pass keeps S^T's two bf16 parts by stmatrix's
# transposing form (store_parts_transposed, v55's) behind FLA_EXP_STMATRIX_FWD=1, on a build with v55. The
# rwkv7 chunk and fused bf16 battery with it on (compared with s75f's check-old.json), A/B rounds.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75g; mkdir -p $R
cp run-s75g.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s75g.tar.xz s75g); }
date
FLA_EXP_STMATRIX_FWD=1 timeout 60 ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/.*/bf16/' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
pack
O="--preset peer --min-time 0.1 --min-samples 5 --no-check"
F='^rwkv7/chunk/fwd/bf16/.*/C32'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_EXP_STMATRIX_FWD=1 ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 12 $R/ab.txt
pack; date
