#!/bin/bash
# stop 85: gsa version 59 candidate (pass 1's value gradients make dq, bf16 and fp32; FLA_AB_DQ=2 in 16 warps),
# against the dq pass behind FLA_AB_DQ=0, one binary (branch prep/stop85-v59; fused_recurrent version 93 landed under both).
# gsa's battery, memcheck of gsa's bf16/fp32 fwd+bwd cases, two A/B rounds of gsa's fused fwd+bwd in every dtype
# and chunk fwd+bwd in bf16 at the peer shapes, the per-launch profile at 1,24576,16,64, issue 10's fused grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s85a; mkdir -p $R; cp run-s85a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s85a.tar.xz s85a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 150 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
pack
timeout 80 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '(shapes/gsa/chunk/fwdbwd/(bf16|fp32)/B2-T65-H2-K64-V(32-M64-G4|64-M32)/C(16|32|64)/reference|gsa/fused_recurrent/fwdbwd/(bf16|fp32)/.*segments)' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  for m in 0 1 2; do
    FLA_AB_DQ=$m timeout 60 ./fb --filter '^gsa/(fused_recurrent/fwdbwd/|chunk/fwdbwd/bf16/)' $O --out $R/dq$m-$round.json > $R/dq$m-$round.log 2>&1
  done
  pack
done
for m in 1 2; do
  ./fb compare --rounds $R/dq0-1.json $R/dq$m-1.json $R/dq0-2.json $R/dq$m-2.json > $R/ab-0-$m.txt 2>&1; grep -E "geomean|slower|faster|same" $R/ab-0-$m.txt | head -24
done
pack; date
for m in 0 1 2; do
  FLA_AB_DQ=$m timeout 30 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/bf16/(B1-T24576|B4-T4096-H16-K64)' --preset peer --out $R/profile-dq$m.json > $R/profile-dq$m.log 2>&1; tail -n1 $R/profile-dq$m.log
done
pack; date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "grid rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
