#!/bin/bash
# stop 82: gsa version 56b candidate (on version 55): where pass 2 saved Hv by width (1,24576,16,64), the
# logit gradients read it so and its transpose runs on a high-priority side beside them; against the
# transpose first (FLA_AB_TRANSPOSE_FIRST=1) and on a normal-priority side (FLA_AB_TRANSPOSE_NORMAL=1, version
# 56: measured "same"), one binary. gsa's fused fwd+bwd battery and memcheck of its segments cases, three
# A/B rounds at 1,24576,16,64, the profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s82e; mkdir -p $R; cp run-s82e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s82e.tar.xz s82e); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 60 ./fb check --filter 'gsa/fused_recurrent/fwdbwd' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
timeout 30 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n1 $R/memcheck.log
pack; date
O="--preset peer --min-time 0.5 --min-samples 10 --no-check"; F='^gsa/fused_recurrent/fwdbwd/.*/B1-T24576'
for round in 1 2 3; do
  FLA_AB_TRANSPOSE_FIRST=1 ./fb --filter "$F" $O --out $R/first-$round.json > $R/first-$round.log 2>&1
  FLA_AB_TRANSPOSE_NORMAL=1 ./fb --filter "$F" $O --out $R/normal-$round.json > $R/normal-$round.log 2>&1
  ./fb --filter "$F" $O --out $R/high-$round.json > $R/high-$round.log 2>&1
  pack
done
./fb compare --rounds $R/first-1.json $R/high-1.json $R/first-2.json $R/high-2.json $R/first-3.json $R/high-3.json > $R/ab-high.txt 2>&1; grep -E "B1-T24576|geomean" $R/ab-high.txt
./fb compare --rounds $R/first-1.json $R/normal-1.json $R/first-2.json $R/normal-2.json $R/first-3.json $R/normal-3.json > $R/ab-normal.txt 2>&1; grep -E "B1-T24576|geomean" $R/ab-normal.txt
pack; date
timeout 40 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
pack; date
