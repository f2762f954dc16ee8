#!/usr/bin/env bash
# gpu-acceptance.sh BUNDLE_DIR OUT_DIR profile|h100|multi: the GPU runs that back the open issues' acceptance, in one
# device call each (see the issues' closing notes):
#   profile  counters and per-kernel times (`fla-bench profile`) of every naive and fused_recurrent bf16 case
#   h100   one case of four under ncu, picked by its NVTX ranges, two
#          runs of one build for `compare` (expect "same"), and a run that survives an illegal address
#   multi  on a host with several GPUs: the same selection on one GPU and with --devices all (the speed-up),
#          and a run for `compare --across-gpus` against the H100's
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: gpu-acceptance.sh BUNDLE_DIR OUT_DIR profile|h100|multi" >&2; exit 2; }
bundle=$(cd "$1" && pwd) out=$2 mode=$3
fla="$bundle/fla-bench"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv | tee "$out/gpus.csv"
# A selection of about a minute: every op's fused_recurrent forward in bf16 on the peer shapes.
selection=(--filter 'fused_recurrent/fwd/bf16' --min-time 0.3)
case "$mode" in
  h100)
    # One case out of a run, picked by its NVTX ranges (one per part of the case name).
    one='gla/fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K64-V64'
    ncu --nvtx --nvtx-include "fla-bench@$one/" --metrics gpu__time_duration.sum,dram__bytes_read.sum \
      "$fla" --profile-once --filter 'fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K64-V64' --out "$out/once.json" \
      > "$out/ncu.log" 2>&1 || true
    grep -E "_kernel|==PROF==|==WARNING==|dram__bytes|gpu__time" "$out/ncu.log" | head -n 24
    for run in a b; do "$fla" "${selection[@]}" --out "$out/same-build-$run.json" > /dev/null 2>&1 || true; done
    "$fla" compare "$out/same-build-a.json" "$out/same-build-b.json" --fail-on-regression > "$out/compare.log" 2>&1 || true
    tail -n 3 "$out/compare.log"
    FLA_BENCH_WORKER_FAULT='^gla/fused_recurrent/fwd/bf16/B8-T1024-H8-K64-V64$=cuda' \
      "$fla" "${selection[@]}" --isolate --out "$out/fault.json" > "$out/fault.log" 2>&1 || true
    grep -A2 "^failed:" "$out/fault.log"; tail -n 2 "$out/fault.log"
    ;;
  profile)
    # Every naive and fused_recurrent case in bf16 on the peer shapes; few timed samples (the naive backward
    # takes up to a second a call, and each case is replayed once per counter pass and five times traced).
    "$fla" profile --filter 'naive|fused_recurrent' --axis dtype=bf16 --min-time 0.05 --min-samples 3 \
      --warmup 0.02 --out "$out/profile.json" > "$out/profile.log" 2>&1 || true
    grep -A6 "gla/fused_recurrent/fwdbwd/bf16/B4-T4096" "$out/profile.log" | head -n 14; tail -n 2 "$out/profile.log"
    ;;
  multi)
    "$fla" "${selection[@]}" --device cuda:0 --out "$out/one-gpu.json" > "$out/one-gpu.log" 2>&1 || true
    "$fla" "${selection[@]}" --devices all --out "$out/all-gpus.json" > "$out/all-gpus.log" 2>&1 || true
    tail -n 2 "$out/one-gpu.log" "$out/all-gpus.log"
    ;;
  *) echo "gpu-acceptance.sh: mode is profile, h100 or multi" >&2; exit 2 ;;
esac
