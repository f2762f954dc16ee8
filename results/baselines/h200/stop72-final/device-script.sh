#!/bin/bash
# stop 72, gsa versions 53 and 54 as landed on main (one 16-byte transpose, no switch; fp16's balance by exact
# powers of two): gsa's battery (every error bit-for-bit stop 71's expected), memcheck of gsa's fused cases over
# segments (version 52's transposed path) and gsa chunk's, gsa's and gla's fused peer times in every dtype
# (issue 10's grid), the profile of gsa's 16-bit fwd+bwd at 1,24576,16,64; tarred after every step
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/stop72-final; mkdir -p $R
cp run-s72c.sh $R/device-script.sh
save() { (cd /tmp && tar -cJf $OUT/stop72-final.tar.xz stop72-final); }
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
timeout 120 ./fb check --filter '/gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log
grep FAIL $R/check-gsa.log | head -5; save
timeout 110 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/(fused_recurrent|chunk)/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log; save
date
timeout 230 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log; save
date
timeout 60 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
save; date
