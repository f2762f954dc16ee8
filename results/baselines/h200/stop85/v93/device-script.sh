#!/bin/bash
# stop 84: fused_recurrent version 93 candidate (as run-s84b.sh; simple_gla's prepare now skipped where its
# scalar-gate backward runs): the three ops' fused battery both ways (FLA_AB_PREP=0 the committed order), and
# two A/B rounds of simple_gla's fused fwd+bwd at the peer shapes in every dtype.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s84c; mkdir -p $R; cp run-s84c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s84c.tar.xz s84c); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
for m in 1 0; do
  FLA_AB_PREP=$m timeout 60 ./fb check --filter '/(gla|rwkv6|simple_gla)/fused_recurrent/' --out $R/check-prep$m.json > $R/check-prep$m.log 2>&1; echo "check $m rc $?"; tail -n2 $R/check-prep$m.log
  pack
done
date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  for m in 0 1; do
    FLA_AB_PREP=$m timeout 30 ./fb --filter '^simple_gla/fused_recurrent/fwdbwd/' $O --out $R/prep$m-$round.json > $R/prep$m-$round.log 2>&1
  done
  pack
done
./fb compare --rounds $R/prep0-1.json $R/prep1-1.json $R/prep0-2.json $R/prep1-2.json > $R/ab-0-1.txt 2>&1; grep -E "geomean|slower|faster|same" $R/ab-0-1.txt | head -20
pack; date
