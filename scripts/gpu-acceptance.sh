#!/usr/bin/env bash
# gpu-acceptance.sh BUNDLE_DIR OUT_DIR h100|multi: the GPU runs that back the open issues' acceptance, in one
# device call each (see the issues' closing notes):
#   h100   counters and kernel times (`fla-bench profile`), one case under ncu picked by its NVTX range, two
#          runs of one build for `compare` (expect "same"), and a run that survives an illegal address
#   multi  on a host with several GPUs: the same selection on one GPU and with --devices all (the speed-up),
#          and a run for `compare --across-gpus` against the H100's
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: gpu-acceptance.sh BUNDLE_DIR OUT_DIR h100|multi" >&2; exit 2; }
bundle=$(cd "$1" && pwd) out=$2 mode=$3
fla="$bundle/fla-bench"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv | tee "$out/gpus.csv"
# A selection of about a minute: every op's fused_recurrent forward in bf16 on the peer shapes.
selection=(--filter 'fused_recurrent/fwd/bf16' --min-time 0.3)
case "$mode" in
  h100)
    "$fla" profile --filter 'fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K64|naive/fwd/bf16/B8-T1024' \
      --out "$out/profile.json" > "$out/profile.log" 2>&1 || true
    tail -n 12 "$out/profile.log"
    one='gla/fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K64-V64'
    ncu --nvtx --nvtx-include "fla-bench@$one/" --metrics gpu__time_duration.sum,dram__bytes_read.sum \
      "$fla" --profile-once --filter "$one\$" --out "$out/once.json" > "$out/ncu.log" 2>&1 || true
    grep -E "fused_recurrent|==PROF==|Section|dram__bytes|gpu__time" "$out/ncu.log" | head -n 20
    for run in a b; do "$fla" "${selection[@]}" --out "$out/same-build-$run.json" > /dev/null 2>&1 || true; done
    "$fla" compare "$out/same-build-a.json" "$out/same-build-b.json" --fail-on-regression > "$out/compare.log" 2>&1 || true
    tail -n 4 "$out/compare.log"
    FLA_BENCH_WORKER_FAULT='gla/fused_recurrent/fwd/bf16/B8-T1024-H8-K64-V64=cuda' \
      "$fla" "${selection[@]}" --isolate --out "$out/fault.json" > "$out/fault.log" 2>&1 || true
    grep -A2 "^failed:" "$out/fault.log"; tail -n 2 "$out/fault.log"
    ;;
  multi)
    "$fla" "${selection[@]}" --device cuda:0 --out "$out/one-gpu.json" > "$out/one-gpu.log" 2>&1 || true
    "$fla" "${selection[@]}" --devices all --out "$out/all-gpus.json" > "$out/all-gpus.log" 2>&1 || true
    tail -n 2 "$out/one-gpu.log" "$out/all-gpus.log"
    ;;
  *) echo "gpu-acceptance.sh: mode is h100 or multi" >&2; exit 2 ;;
esac
