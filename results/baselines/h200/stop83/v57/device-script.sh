#!/bin/bash
# stop 83: gsa version 57 candidate: fp16's row balance reads the chunk's queries from shared memory (cp.async
# beside the scores' product, after p in S0's room), against the committed global reads behind
# FLA_AB_Q_GLOBAL=1 (one binary). gsa's battery (with the K = V = M = 128 case never yet run), racecheck and
# memcheck of fp16's segments cases, two A/B rounds of gsa's fp16 fwd+bwd (fused at the peer shapes, chunk at
# C = 32), ncu of the kernel both ways.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s83a; mkdir -p $R; cp run-s83a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s83a.tar.xz s83a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'chunk_logit_grads' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers.txt 2>&1
date
timeout 150 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log; grep -c 'K128-V128-M128' $R/check-gsa.log
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/(fused_recurrent|chunk)/fwdbwd/fp16/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
timeout 100 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/fp16/.*segments' --out $R/racecheck.json > $R/racecheck.log 2>&1; echo "racecheck rc $?"; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
for round in 1 2; do
  FLA_AB_Q_GLOBAL=1 ./fb --filter '^gsa/fused_recurrent/fwdbwd/fp16' $O --out $R/base-$round.json > $R/base-$round.log 2>&1
  FLA_AB_Q_GLOBAL=1 ./fb --filter '^gsa/chunk/fwdbwd/fp16' --axis C=32 $O --out $R/base-chunk-$round.json > $R/base-chunk-$round.log 2>&1
  ./fb --filter '^gsa/fused_recurrent/fwdbwd/fp16' $O --out $R/staged-$round.json > $R/staged-$round.log 2>&1
  ./fb --filter '^gsa/chunk/fwdbwd/fp16' --axis C=32 $O --out $R/staged-chunk-$round.json > $R/staged-chunk-$round.log 2>&1
  pack
done
./fb compare --rounds $R/base-1.json $R/staged-1.json $R/base-2.json $R/staged-2.json > $R/ab.txt 2>&1; grep -E "geomean|slower|faster|same" $R/ab.txt | head -20
./fb compare --rounds $R/base-chunk-1.json $R/staged-chunk-1.json $R/base-chunk-2.json $R/staged-chunk-2.json > $R/ab-chunk.txt 2>&1; grep -E "geomean|slower|faster|same" $R/ab-chunk.txt | head
pack; date
for way in staged global; do
  E=""; [ $way = global ] && E="FLA_AB_Q_GLOBAL=1"
  env $E timeout 60 ncu --set full --import-source yes -k regex:chunk_logit_grads --launch-count 1 -o /tmp/ncu-$way ./fb --filter "^gsa/fused_recurrent/fwdbwd/fp16/B1-T24576" --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-$way.log 2>&1; echo "ncu $way rc $?"
  ncu --import /tmp/ncu-$way.ncu-rep --page details > $R/ncu-$way-details.txt 2>&1
  grep -E '^\s+(Duration|Registers Per|Achieved Occ|Executed Ipc A)' $R/ncu-$way-details.txt
  ncu --import /tmp/ncu-$way.ncu-rep --page source --csv --print-source sass > $R/ncu-$way-source.csv 2>&1; gzip -9 $R/ncu-$way-source.csv
  pack
done
date
