#!/bin/bash
# stop 84: fused_recurrent version 93 candidate: gla's, rwkv6's and simple_gla's fused fwd+bwd make the chunked
# backward's decays and reverse-scan operand beside the forward's scan (a side stream), against the committed
# order (both at the backward's start) behind FLA_AB_PREP=0, one binary. The three ops' fused battery both
# ways (bit for bit), two A/B rounds of their fwd+bwd at the peer shapes in every dtype, the per-launch
# profile of gla's bf16 fwd+bwd at the 64-head D = 64 shapes, issue 10's fused grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s84b; mkdir -p $R; cp run-s84b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s84b.tar.xz s84b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
for m in 1 0; do
  FLA_AB_PREP=$m timeout 100 ./fb check --filter '^(gla|rwkv6|simple_gla)/fused_recurrent/' --out $R/check-prep$m.json > $R/check-prep$m.log 2>&1; echo "check $m rc $?"; tail -n2 $R/check-prep$m.log
done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  for m in 0 1; do
    FLA_AB_PREP=$m timeout 60 ./fb --filter '^(gla|rwkv6|simple_gla)/fused_recurrent/fwdbwd/' $O --out $R/prep$m-$round.json > $R/prep$m-$round.log 2>&1
  done
  pack
done
./fb compare --rounds $R/prep0-1.json $R/prep1-1.json $R/prep0-2.json $R/prep1-2.json > $R/ab-0-1.txt 2>&1; grep -E "geomean|slower|faster|over 2 rounds" $R/ab-0-1.txt | head -60
pack; date
timeout 40 ./fb profile --filter '^gla/fused_recurrent/fwdbwd/bf16/B(8-T1024|4-T4096)-H(8|16)-K64' --preset peer --out $R/profile-prep1.json > $R/profile-prep1.log 2>&1; tail -n1 $R/profile-prep1.log
pack; date
timeout 100 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "grid rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
