#!/bin/bash
# stop 68's committed build: the whole battery, and the CLI tests beside fla-bench on the GPU
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop68-final; mkdir -p $R
cp run-final.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head
date
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; tail -n3 $R/gpu-cli-tests.log
date
# gsa's and gla's bf16 fused fwd+bwd at the two 64-head D = 64 shapes, where gsa's ratio to gla's is over 2:
# per-kernel times and the timeline of each launch (issue 10's next reading)
./fb profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/bf16/B(8-T1024|4-T4096-H16-K64)' --preset peer --out $R/profile-gsa-gla.json > $R/profile-gsa-gla.log 2>&1; tail -n1 $R/profile-gsa-gla.log
date
cd $OUT && tar -cJf stop68-final.tar.xz stop68-final && rm -rf stop68-final
