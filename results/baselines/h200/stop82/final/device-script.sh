#!/bin/bash
# stop 82's final build (gsa version 55: the logit gradients at four blocks an SM where four fit, p by
# cp.async into S0's room): gsa's battery, memcheck and racecheck of its segments cases, the kernel's
# registers and ncu durations, issue 10's fused grid and gsa chunk's bf16 table.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s82d; mkdir -p $R; cp run-s82d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s82d.tar.xz s82d); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'chunk_logit_grads' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers.txt 2>&1
date
timeout 120 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc $?"; tail -n2 $R/check-gsa.log
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/(fused_recurrent|chunk)/fwdbwd/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
timeout 120 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/fp16/.*segments' --out $R/racecheck.json > $R/racecheck.log 2>&1; echo "racecheck rc $?"; tail -n3 $R/racecheck.log
pack; date
for dt in bf16 fp16; do
  timeout 60 ncu --section SpeedOfLight --section Occupancy --section LaunchStats -k regex:chunk_logit_grads --launch-count 1 ./fb --filter "^gsa/fused_recurrent/fwdbwd/$dt/B1-T24576" --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-$dt.txt 2>&1; echo "ncu $dt rc $?"; grep -E '^\s+(Duration|Registers Per|Achieved Occ)' $R/ncu-$dt.txt
done
pack; date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "grid rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
timeout 100 ./fb --filter '^gsa/chunk/(fwd|fwdbwd)/bf16' --axis C=32,64 --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-chunk.json > $R/issue10-gsa-chunk.log 2>&1; echo "chunk rc $?"; tail -n1 $R/issue10-gsa-chunk.log
pack; date
