#!/bin/bash
# The wgmma branch's first GPU call (prepared at stop 98, not yet run; supersedes stop97-prep/device-call-1.sh):
# the wgmma layer's test; the batteries of the two one-kernel forwards under timeouts (a hang is the barrier
# protocol: tests/kernels/fused_barriers_test.py models it): simple_gla's whole chunk battery (its C = 64 bf16
# forwards, alone and before a backward, take version 71) and gla's and rwkv6's bf16 forwards alone (version 72
# takes those at C = 64); then compute-sanitizer on both. Carry build-part-s98/new (fla-bench.xz,
# flabench_wgmma_tests, lib/).
cd build-part-s98/new; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s98c1; mkdir -p $R
pack() { tar -cJf $OUT/s98-call1.tar.xz -C /tmp s98c1; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
date
timeout 60 ./flabench_wgmma_tests > $R/wgmma-tests.log 2>&1; echo "wgmma tests rc $?"; tail -n 4 $R/wgmma-tests.log
# check names start with the family (accuracy/gla/chunk/...): filters match from the op's slash; the
# handoffs (state/gla/fused_recurrent>chunk/...) hand the kernel an initial state from another variant
timeout 200 ./fb check --filter '/(gla|rwkv6)/[a-z_>]*chunk[a-z_>]*/fwd/bf16/' --out $R/check-per-key.json > $R/check-per-key.log 2>&1
echo "per-key check rc $? (124: a hang, the barriers)"; tail -n 3 $R/check-per-key.log; xz -T0 -f $R/check-per-key.json
pack
timeout 240 ./fb check --filter '/simple_gla/chunk/' --out $R/check-simple-gla.json > $R/check-simple-gla.log 2>&1
echo "simple_gla check rc $? (124: a hang)"; tail -n 3 $R/check-simple-gla.log; xz -T0 -f $R/check-simple-gla.json
pack
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 ./fb check --no-isolate --no-long \
    --filter '^(accuracy|shapes|state|decay)/(gla|rwkv6|simple_gla)/chunk/fwd/bf16/.*C64' --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; tail -n 3 $R/$tool.log; rm -f $R/$tool.json
done
cuobjdump -res-usage ./fb 2>/dev/null | grep -A1 'fused_forward_kernel' > $R/registers.txt
for k in scalar_fused_forward_kernel per_key_fused_forward_kernel; do
  echo "$k HGMMA $(cuobjdump -sass ./fb 2>/dev/null | awk "/$k/,/EXIT/" | grep -c HGMMA) HMMA $(cuobjdump -sass ./fb 2>/dev/null | awk "/$k/,/EXIT/" | grep -c 'HMMA')"
done > $R/sass-mix.txt
pack
date
