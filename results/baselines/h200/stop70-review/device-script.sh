#!/bin/bash
# stop 70 review: current_device_limits cached a thread and device (it is asked several times a call);
# the whole battery (with both smaller GPUs), memcheck of the 99 KiB fused cases, the CLI tests and the
# four ops' fused bf16 peer times (no plan changed)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-review; mkdir -p $R
cp run-s70h.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '/fused_recurrent/.*/shared_memory_99KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; tail -n3 $R/gpu-cli-tests.log
date
./fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/fused-peer.json > $R/fused-peer.log 2>&1; tail -n1 $R/fused-peer.log
date
cd $OUT && tar -cJf stop70-review.tar.xz stop70-review && rm -rf stop70-review
