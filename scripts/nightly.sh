#!/usr/bin/env bash
# The nightly job of a GPU machine: run fla-bench, file the result into the history store
# (STORE/<gpu>/<start>-<commit>.json), analyse that GPU's last 30 runs, draw the trend, and exit non-zero when
# a case's newest run is a step slower (or a check failed), so the scheduler can alert.
#
# usage: scripts/nightly.sh STORE [fla-bench run options...]
#   e.g. scripts/nightly.sh /data/fla-history --filter 'fused_recurrent|chunk'
# FLA_BENCH names the binary (default build/fla-bench).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 STORE [fla-bench run options...]" >&2
  exit 2
fi
store=$1
shift
fla_bench=${FLA_BENCH:-build/fla-bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
"$fla_bench" --isolate --out "$work/run.json" "$@" || status=$?  # a failed case still files the run
[ -f "$work/run.json" ] || { echo "nightly: the run left no result file" >&2; exit 1; }
filed=$("$fla_bench" history "$store" --add "$work/run.json" | sed -n 's/^filed: //p')
gpu_folder=$(dirname "$filed")
trend="$gpu_folder.trend.json"  # beside the GPU's folder: that folder holds result files only
"$fla_bench" history "$gpu_folder" --last 30 --fail-on-regression --out "$trend" || status=1
"$fla_bench" plot "$filed" --history "$trend" -o "$gpu_folder.plots" || echo "nightly: plotting failed" >&2
exit "$status"
