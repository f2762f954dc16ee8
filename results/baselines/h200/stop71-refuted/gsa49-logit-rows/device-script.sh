#!/bin/bash
# stop 71, gsa version 49: the logit gradients' dz rows two slots a lane (bf16, fp32). gsa's fwd+bwd checks
# (chunk and fused), gsa's and gla's fused peer times in every dtype (issue 10's grid), profiles of gsa's
# fused fwd+bwd (bf16, fp32) and of gsa's and gla's bf16 forward at 1,24576,16,64 (the segments' timeline)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-gsa49; mkdir -p $R
cp run-s71a.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --filter 'gsa/(chunk|fused_recurrent)/fwdbwd' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log
grep FAIL $R/check-gsa.log | head
date
timeout 200 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp32)/B1-T24576|^(gsa|gla)/fused_recurrent/fwd/bf16/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
date
cd $OUT && tar -cJf stop71-gsa49.tar.xz stop71-gsa49 && rm -rf stop71-gsa49
