#!/bin/bash
# stop 85: gsa version 60 candidate (fp16's dq made by pass 1's value gradients too, q from dz in fp32 and each
# row times its 2^-e), against version 59 (fp16's dq pass) behind FLA_AB_DQ16=0, one binary (branch
# prep/stop85-v60). gsa's battery, memcheck of gsa's fp16 fwd+bwd cases that take it, two A/B rounds of gsa's
# fused and chunk fp16 fwd+bwd at the peer shapes, the per-launch profiles, issue 10's fused grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s85c; mkdir -p $R; cp run-s85c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s85c.tar.xz s85c); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 150 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
pack
timeout 80 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '(shapes/gsa/chunk/fwdbwd/fp16/B2-T65-H2-K64-V(32-M64-G4|64-M32)/C(16|32|64)/reference|gsa/fused_recurrent/fwdbwd/fp16/.*segments)' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  for m in 0 1; do
    FLA_AB_DQ16=$m timeout 60 ./fb --filter '^gsa/(fused_recurrent|chunk)/fwdbwd/fp16/' $O --out $R/dq16-$m-$round.json > $R/dq16-$m-$round.log 2>&1
  done
  pack
done
./fb compare --rounds $R/dq16-0-1.json $R/dq16-1-1.json $R/dq16-0-2.json $R/dq16-1-2.json > $R/ab-0-1.txt 2>&1; grep -E "geomean|slower|faster|same" $R/ab-0-1.txt | head -14
pack; date
for m in 0 1; do
  FLA_AB_DQ16=$m timeout 30 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/fp16/(B1-T24576|B4-T4096-H16-K64)' --preset peer --out $R/profile-dq16-$m.json > $R/profile-dq16-$m.log 2>&1; tail -n1 $R/profile-dq16-$m.log
done
pack; date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "grid rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
