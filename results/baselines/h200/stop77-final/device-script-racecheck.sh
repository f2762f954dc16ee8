#!/bin/bash
# stop 77: racecheck of the committed kernels (v61's channel kernel, v62's local gradients) at bf16 K = 128,
# where the 512-thread local kernel runs: v63's A/B binary with FLA_AB_LOCAL=0, which is the committed source.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s77d; mkdir -p $R; cp run-s77d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s77d.tar.xz s77d); }
date
FLA_AB_LOCAL=0 timeout 280 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/chunk/fwdbwd/bf16/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
FLA_AB_LOCAL=0 timeout 150 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/bf16/.*K128.*reference' --out $R/racecheck-fused.json > $R/racecheck-fused.log 2>&1; tail -n3 $R/racecheck-fused.log
pack; date
