#!/bin/bash
# chunk version 51's committed build: bf16's scan operand in two bf16 planes; the final-state check threshold
# (1e-4 for 16-bit inputs). The whole battery, memcheck and racecheck of the changed scans, issue 4's table.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v51final; mkdir -p $R
cp run-v51final.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head -20
date
timeout 150 compute-sanitizer --tool memcheck ./fb check --no-isolate --no-long --filter '^(accuracy|shapes|state)/(gla|rwkv6|gsa)/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -n3 $R/memcheck.log
timeout 120 compute-sanitizer --tool racecheck ./fb check --no-isolate --no-long --filter '^accuracy/(gla|gsa)/chunk/fwdbwd/bf16/B2-T65' --out $R/racecheck.json > $R/racecheck.log 2>&1; echo "racecheck rc=$?"; tail -n3 $R/racecheck.log
date
./fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' --preset peer --min-time 0.2 --min-samples 5 --out $R/chunk.json > $R/chunk.log 2>&1; tail -n2 $R/chunk.log
date
cd $OUT && tar -cJf v51final.tar.xz v51final && rm -rf v51final
