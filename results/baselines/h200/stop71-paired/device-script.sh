#!/bin/bash
# stop 71: A/B of gsa's pipelined forward with each pass launched in clusters of two blocks (FLA_AB_PAIRED:
# whether a cluster's blocks share a TPC, so that a TPC never runs both passes), gsa's fused fwd and fwd+bwd on the
# peer shapes, every dtype, two rounds each way; the fused battery and a profile timeline with the switch on
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-paired; mkdir -p $R
cp run-s71d.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./smid > $R/smid.txt 2>&1; cat $R/smid.txt
F='^gsa/fused_recurrent/(fwd|fwdbwd)/'
for round in 1 2; do
  ./fb --filter "$F" --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/base-$round.json > $R/base-$round.log 2>&1; tail -n1 $R/base-$round.log
  FLA_AB_PAIRED=1 ./fb --filter "$F" --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/paired-$round.json > $R/paired-$round.log 2>&1; tail -n1 $R/paired-$round.log
  date
done
FLA_AB_PAIRED=1 ./fb check --filter 'gsa/fused_recurrent/' --out $R/check-paired.json > $R/check-paired.log 2>&1; tail -n2 $R/check-paired.log
FLA_AB_PAIRED=1 ./fb profile --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/bf16/B1-T24576' --preset peer --out $R/profile-paired.json > $R/profile-paired.log 2>&1; tail -n1 $R/profile-paired.log
date
cd $OUT && tar -cJf stop71-paired.tar.xz stop71-paired && rm -rf stop71-paired
