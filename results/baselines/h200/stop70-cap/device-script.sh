#!/bin/bash
# stop 70: the battery with the shapes family's cases planned for 99 KiB of shared memory a block (an RTX
# 40xx's; SharedMemoryCap), which reach the scans' backward of gla, rwkv6 and simple_gla on this GPU; memcheck
# of those fused fwd+bwd cases; the CLI tests beside fla-bench; gla's fused and chunk bf16 times on the peer
# shapes (the plans now read the room through current_device_limits: no time should move)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop70-cap; mkdir -p $R
cp run-s70a.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'shapes/(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/fwdbwd/.*/shared_memory_99KiB' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; tail -n3 $R/gpu-cli-tests.log
date
./fb --filter '^gla/(fused_recurrent/(fwd|fwdbwd)/bf16/|chunk/(fwd|fwdbwd)/bf16/.*/C64)' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/gla-peer.json > $R/gla-peer.log 2>&1; tail -n1 $R/gla-peer.log
date
cd $OUT && tar -cJf stop70-cap.tar.xz stop70-cap && rm -rf stop70-cap
