#!/bin/bash
# stop 71, gsa version 51 as committed (the pipelined forward's passes in clusters of two blocks, a TPC each):
# gsa's battery, memcheck of its fused cases over segments (the paired launches), gsa's and gla's fused peer
# times in every dtype (issue 10's grid), the profile of gsa's bf16 fwd+bwd at 1,24576,16,64
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-final; mkdir -p $R
cp run-s71e.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --filter '/gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log
grep FAIL $R/check-gsa.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n2 $R/gsa-gla-peer.log
date
./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
date
cd $OUT && tar -cJf stop71-final.tar.xz stop71-final && rm -rf stop71-final
