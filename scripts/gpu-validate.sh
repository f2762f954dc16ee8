#!/usr/bin/env bash
# gpu-validate.sh BUNDLE_DIR OUT_DIR [FILTER]: the GPU half of the tests, in one call on a GPU machine.
#   1. the GPU GoogleTest cases (naive vs the fp64 reference on awkward shapes),
#   2. compute-sanitizer memcheck over the checks of every variant on small odd shapes,
#   3. a full `fla-bench --filter FILTER` run (default: naive), its JSON and log into OUT_DIR.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: gpu-validate.sh BUNDLE_DIR OUT_DIR [FILTER]" >&2; exit 2; }
bundle=$1 out=$2 filter=${3:-naive}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
"$bundle/flabench_tests" --gtest_filter='*CudaVariant*' 2>&1 | tail -n 8
compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 5 \
  "$bundle/fla-bench" check --filter "$filter" --preset B1_T70_H2_K64_V16,B2_T65_H1_K16_V32 \
  --out "$out/memcheck.json" 2>&1 | tail -n 3
"$bundle/fla-bench" --filter "$filter" --out "$out/$filter.json" 2>&1 | tee "$out/$filter.log" | tail -n 25
