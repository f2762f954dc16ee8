#!/bin/bash
# stop 86: gsa version 61 on main (the fused fwd+bwd's backward in chunk form in fp32 too; the scans' backward
# only at M = 128 where that form does not fit). gsa's battery, memcheck of the fp32 fused fwd+bwd cases that
# changed path (many heads) and of the one that keeps the scans (M = 128 on 99 KiB), issue 10's fused grid.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s86c; mkdir -p $R; cp run-s86c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s86c.tar.xz s86c); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 120 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check gsa rc $?"; tail -n2 $R/check-gsa.log
pack; date
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/fp32/(.*many_heads|B2-T65-H2-K64-V64-M128/shared_memory_99KiB)' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
timeout 200 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "grid rc $?"; tail -n1 $R/issue10-gsa-gla-fused.log
pack; date
