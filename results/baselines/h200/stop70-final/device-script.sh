#!/bin/bash
# stop 70's final build: the whole battery (with the 99 KiB cases, gsa's M = 128 one among them: its 16-bit
# fused fwd+bwd now on gsa's own scans), memcheck of gsa's 99 KiB fused cases, the CLI tests beside fla-bench
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-final; mkdir -p $R
cp run-s70c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'shapes/gsa/fused_recurrent/.*/shared_memory_99KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; tail -n3 $R/gpu-cli-tests.log
date
cd $OUT && tar -cJf stop70-final.tar.xz stop70-final && rm -rf stop70-final
