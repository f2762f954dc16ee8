#!/bin/bash
# stop 82: gsa version 56 candidate (on version 55, the logit gradients at four blocks an SM): where pass 2
# saved Hv by width (1,24576,16,64 and the battery's segments case), the logit gradients read it so and its
# transpose runs on a side stream beside them, before pass 2's chunk gradients and pass 1's reverse scan;
# against the transpose first (FLA_AB_TRANSPOSE_FIRST=1, one binary). gsa's battery, memcheck and racecheck
# of the segments cases, two A/B rounds, ncu of the logit gradients both ways, the profile, issue 10's grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s82c; mkdir -p $R; cp run-s82c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s82c.tar.xz s82c); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'chunk_logit_grads' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers.txt 2>&1
date
timeout 200 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
pack; date
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
timeout 120 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/bf16/.*segments' --out $R/racecheck.json > $R/racecheck.log 2>&1; echo "racecheck rc $?"; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  FLA_AB_TRANSPOSE_FIRST=1 ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/base-$round.json > $R/base-$round.log 2>&1
  ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/side-$round.json > $R/side-$round.log 2>&1
  pack
done
./fb compare --rounds $R/base-1.json $R/side-1.json $R/base-2.json $R/side-2.json > $R/ab.txt 2>&1; grep -E "B1-T24576|geomean|slower|faster" $R/ab.txt | head -30
pack; date
for dt in bf16 fp16; do for way in side first; do
  E=""; [ $way = first ] && E="FLA_AB_TRANSPOSE_FIRST=1"
  env $E timeout 60 ncu --section SpeedOfLight --section Occupancy --section LaunchStats -k regex:chunk_logit_grads --launch-count 1 ./fb --filter "^gsa/fused_recurrent/fwdbwd/$dt/B1-T24576" --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-$way-$dt.txt 2>&1; echo "ncu $way $dt rc $?"; grep -E '^\s+Duration' $R/ncu-$way-$dt.txt
done; done
pack; date
timeout 60 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
pack; date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; echo "grid rc $?"
pack; date
