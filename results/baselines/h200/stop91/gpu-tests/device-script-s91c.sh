#!/bin/bash
# stop 91, call c (carries build-part-t: flabench_tests of 17435df, chunk version 59): the GPU tests (the CUDA
# variants against the reference, workspaces, the profiler, tracer, counters and NVTX ranges, timing), as
# CI cannot run them.
cd "$(dirname "$0")"; xz -dc flabench_tests.xz > tests; chmod +x tests; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s91c; mkdir -p $R; cp run-s91c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
timeout 420 ./tests --gtest_filter='All/CudaVariant.*:GpuProfile.*:*Workspace*:FusedLayout.*:KernelTracer.*:CounterProbe.*:NvtxPath.*:TimeCase.*' > $R/gpu-tests.log 2>&1; echo "rc $?" | tee -a $R/gpu-tests.log
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests? ran" $R/gpu-tests.log | head -n 60
(cd /tmp && tar -cJf $OUT/s91c.tar.xz s91c); date
