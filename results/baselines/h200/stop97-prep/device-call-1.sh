#!/bin/bash
# Chunk version 71's first GPU call (prepared at stop 97, not yet run): the wgmma layer's test, simple_gla's
# chunk battery (whose C = 64 bf16 forwards, inference and saving, take the new kernel) under a timeout, compute-sanitizer on the
# new path, and the CUDA-variant test's awkward shapes. Carry build-part-s97/new (fla-bench.xz,
# flabench_wgmma_tests, lib/); flabench_tests only if it fits (step 5 is skipped without it).
cd build-part-s97/new; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v71; mkdir -p $R
pack() { tar -cJf $OUT/v71-call1.tar.xz -C /tmp v71; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
date
timeout 60 ./flabench_wgmma_tests > $R/wgmma-tests.log 2>&1; echo "wgmma tests rc $?"; tail -n 4 $R/wgmma-tests.log
timeout 300 ./fb check --filter '/simple_gla/chunk/' --out $R/check-new.json > $R/check-new.log 2>&1
echo "check rc $? (124: a hang, the barriers)"; tail -n 3 $R/check-new.log; xz -T0 -f $R/check-new.json
pack
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --print-limit 10 ./fb check --no-isolate --no-long \
    --filter '^(accuracy|shapes|state)/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; tail -n 3 $R/$tool.log; rm -f $R/$tool.json
done
pack
if [ -x ./flabench_tests ]; then
  timeout 200 ./flabench_tests --gtest_filter='*CudaVariant*simple_gla*' > $R/cuda-variant-tests.log 2>&1
  echo "cuda variant tests rc $?"; tail -n 4 $R/cuda-variant-tests.log
fi
cuobjdump -res-usage ./fb 2>/dev/null | grep -A1 scalar_fused_forward_kernel > $R/registers.txt
cuobjdump -sass ./fb 2>/dev/null | awk '/scalar_fused_forward_kernel/,/EXIT/' | grep -c HGMMA > $R/hgmma-count.txt
pack
date
