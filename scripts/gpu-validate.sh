#!/usr/bin/env bash
# gpu-validate.sh BUNDLE_DIR OUT_DIR [FILTER]: the GPU half of the tests, in one call on a GPU machine.
#   1. the GPU GoogleTest cases (every CUDA variant against the fp64 reference on awkward shapes, the
#      profiler on a multi-kernel case, a run surviving an illegal address in an isolated worker, the
#      warpgroup products on a Hopper),
#   2. compute-sanitizer memcheck over the check battery (short sequences, in one process),
#   3. a full `fla-bench --filter FILTER` run (default: naive), its JSON and log into OUT_DIR.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: gpu-validate.sh BUNDLE_DIR OUT_DIR [FILTER]" >&2; exit 2; }
bundle=$(cd "$1" && pwd) out=$2 filter=${3:-naive}
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
"$bundle/flabench_tests" --gtest_filter='*CudaVariant*:GpuProfile*' 2>&1 | tee "$out/gpu-tests.log" | tail -n 12
FLA_BENCH_BINARY="$bundle/fla-bench" "$bundle/flabench_cli_tests" 2>&1 | tee "$out/gpu-cli-tests.log" | tail -n 12
"$bundle/flabench_wgmma_tests" 2>&1 | tee "$out/gpu-wgmma-tests.log" | tail -n 4
compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 5 \
  "$bundle/fla-bench" check --no-isolate --no-long --filter "$filter" --out "$out/check-memcheck.json" 2>&1 | tail -n 3
"$bundle/fla-bench" --filter "$filter" --out "$out/$filter.json" 2>&1 | tee "$out/$filter.log" | tail -n 25
