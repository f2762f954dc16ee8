#!/bin/bash
# Stop 120's fifth call: ncu (full set, SASS source) of chunk version 117 (the landed build, c32dc38) at issue
# 4's two closest unmet cells, for the next stop's plan: simple_gla's bf16 fwd+bwd at 8,1024,8,64 (the
# forward, dq's, dk's and dv's passes and the gate scan; under ncu each runs alone) and its forward at
# 2,16384,16,128. No prediction: a reading, not a candidate.
# To run: move results/baselines aside, carry build-part-s120/v117, `bash p5/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v117 ncu117 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
run_ncu() {  # NAME COUNT FILTER AXES...
  local name=$1 count=$2 filter=$3
  shift 3
  timeout 150 ncu --set full --import-source yes -k "regex:scalar_(fused_forward|gate_grads)" \
    --launch-count $count -o /tmp/$name $fb --filter "$filter" "$@" --axis C=64 --profile-once --no-check \
    --out /tmp/j.json > $R/$name.log 2>&1
  echo "ncu $name rc $?"; tail -2 $R/$name.log
  ncu --import /tmp/$name.ncu-rep --page details > $R/$name-details.txt 2>&1; xz -T0 -f $R/$name-details.txt
  for ((i = 0; i < count; i++)); do
    ncu --import /tmp/$name.ncu-rep --page source --csv --print-source sass --launch-skip $i --launch-count 1 \
      > $R/$name-source-$i.csv 2>&1; gzip -9f $R/$name-source-$i.csv
  done
  pack; date
}
run_ncu fwdbwd-8-1024 5 '^simple_gla/chunk/fwdbwd/bf16/' --axis B=8 --axis T=1024 --axis H=8 --axis K=64 --axis V=64
run_ncu fwd-2-16384 1 '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 --axis V=128
ls -la $R
