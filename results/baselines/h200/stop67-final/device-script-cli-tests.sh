#!/bin/bash
# stop 67: the CLI tests (flabench_cli_tests, split from flabench_tests) on a GPU, beside the fla-bench binary
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/gpu-tests; mkdir -p $R
cp run-cli-tests.sh $R/device-script-cli.sh
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; echo "cli tests rc=$?"; tail -n 8 $R/gpu-cli-tests.log
cd $OUT && tar -cJf gpu-tests-cli.tar.xz gpu-tests && rm -rf gpu-tests
