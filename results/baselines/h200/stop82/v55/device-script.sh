#!/bin/bash
# stop 82: gsa version 55 candidate: the logit gradients at four blocks an SM for 16-bit inputs (p by cp.async
# into S0's room beside the scores' product, not staged with the inputs; 64 registers), against the committed
# kernel behind FLA_AB_LG_STAGED=1 (one binary). gsa's battery with the candidate, two A/B rounds of gsa's
# fwd+bwd (fused at the peer shapes, every dtype; chunk bf16 at C = 32), ncu of the kernel both ways, the
# per-launch profile, and issue 10's fused grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s82b; mkdir -p $R; cp run-s82b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s82b.tar.xz s82b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'chunk_logit_grads' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers.txt 2>&1
date
timeout 170 ./fb check --filter '^gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  FLA_AB_LG_STAGED=1 ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/base-$round.json > $R/base-$round.log 2>&1
  FLA_AB_LG_STAGED=1 ./fb --filter '^gsa/chunk/fwdbwd/bf16' --axis C=32 $O --out $R/base-chunk-$round.json > $R/base-chunk-$round.log 2>&1
  ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/four-$round.json > $R/four-$round.log 2>&1
  ./fb --filter '^gsa/chunk/fwdbwd/bf16' --axis C=32 $O --out $R/four-chunk-$round.json > $R/four-chunk-$round.log 2>&1
  pack
done
./fb compare --rounds $R/base-1.json $R/four-1.json $R/base-2.json $R/four-2.json > $R/ab.txt 2>&1; grep -E "B1-T24576|geomean|slower|faster" $R/ab.txt | head -30
./fb compare --rounds $R/base-chunk-1.json $R/four-chunk-1.json $R/base-chunk-2.json $R/four-chunk-2.json > $R/ab-chunk.txt 2>&1; grep -E "geomean|slower|faster" $R/ab-chunk.txt | head
pack; date
for dt in bf16 fp16; do for way in four staged; do
  E=""; [ $way = staged ] && E="FLA_AB_LG_STAGED=1"
  env $E timeout 60 ncu --set full --import-source yes -k regex:chunk_logit_grads --launch-count 1 -o /tmp/ncu-$way-$dt ./fb --filter "^gsa/fused_recurrent/fwdbwd/$dt/B1-T24576" --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-$way-$dt.log 2>&1; echo "ncu $way $dt rc $?"
  ncu --import /tmp/ncu-$way-$dt.ncu-rep --page details > $R/ncu-$way-$dt-details.txt 2>&1
  ncu --import /tmp/ncu-$way-$dt.ncu-rep --page source --csv --print-source sass > $R/ncu-$way-$dt-source.csv 2>&1; gzip -9 $R/ncu-$way-$dt-source.csv
done; pack; done
date
timeout 60 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
pack; date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; echo "grid rc $?"
pack; date
