#!/bin/bash
# stop 83: gsa version 58 candidate: the chunked backward's decays and the transposes of Hv's checkpoints of
# all but the last two segments made in the pipelined forward's tail (beside pass 2's last segments), against
# the committed order (both at the backward's start) behind FLA_AB_TAIL=0, one binary (branch
# prep/stop83-v58). gsa's battery, memcheck of the segments fwd+bwd cases, two A/B rounds of gsa's
# fused fwd+bwd at the peer shapes in every dtype, the per-launch profile at 1,24576,16,64, issue 10's grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s83c; mkdir -p $R; cp run-s83c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s83c.tar.xz s83c); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 150 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  for m in 0 2; do
    FLA_AB_TAIL=$m ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/tail$m-$round.json > $R/tail$m-$round.log 2>&1
  done
  pack
done
./fb compare --rounds $R/tail0-1.json $R/tail2-1.json $R/tail0-2.json $R/tail2-2.json > $R/ab-0-2.txt 2>&1; grep -E "geomean|slower|faster|same" $R/ab-0-2.txt | head -20
pack; date
for m in 0 2; do
  FLA_AB_TAIL=$m timeout 60 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/B1-T24576' --preset peer --out $R/profile-tail$m.json > $R/profile-tail$m.log 2>&1; tail -n1 $R/profile-tail$m.log
done
pack; date
timeout 170 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "grid rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
