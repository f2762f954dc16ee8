#!/bin/bash
# stop 86 (branch prep/stop86-fp32-chunks, rebuilt: stop 85's build dir had gsa's and rwkv6's fused_recurrent.cu.o
# with no recorded header deps, so run-s86a's binary lacked the switch). gsa's fp32 fused fwd+bwd in chunk form
# at every shape (FLA_AB_FP32CH=1) against the committed rule: two A/B rounds at the peer shapes, the fp32 fused
# battery with it on; then, switch off (main's behaviour, every object built from its sources), gsa's battery,
# the fused batteries of gla, rwkv6 and simple_gla, and memcheck of gsa's fused fwd+bwd over segments.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s86b; mkdir -p $R; cp run-s86b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s86b.tar.xz s86b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
BASE_ENV=FLA_AB_FP32CH=0 NEW_ENV=FLA_AB_FP32CH=1 timeout 120 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab 2 \
  --filter '^gsa/fused_recurrent/fwdbwd/fp32/' --preset peer --min-time 0.2 --min-samples 5 --no-check | tail -n 4
pack
FLA_AB_FP32CH=1 timeout 60 ./fb check --filter 'gsa/fused_recurrent/.*/fp32/' --out $R/check-fp32-chunks.json > $R/check-fp32-chunks.log 2>&1; echo "check fp32ch rc $?"; tail -n2 $R/check-fp32-chunks.log
pack; date
timeout 150 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check gsa rc $?"; tail -n2 $R/check-gsa.log
pack; date
timeout 80 ./fb check --filter '/(gla|rwkv6|simple_gla)/fused_recurrent/' --out $R/check-fused3.json > $R/check-fused3.log 2>&1; echo "check fused3 rc $?"; tail -n2 $R/check-fused3.log
pack; date
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/fwdbwd/(fp16|bf16)/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
