#!/bin/bash
# Stop 121's second call: ncu of chunk version 120's forward at 2,16384,16,128 (branch v120-loads-make 554f264,
# the loads making the state's decayed values), where call 1's A/B found it slower than 118 (1.026-1.049):
# which role waits where, against stop 120's call 7 ncu of 118 (fwd-2-16384-source-0.csv.gz there).
# To run: move results/baselines aside, carry build-part-s121/v120, `bash p2/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s121/v120 ncu120 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 90 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 -o /tmp/fwd120 \
  $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/fwd120.ncu-rep --page source --csv --print-source sass > $R/fwd-2-16384-source-0.csv 2>&1
gzip -9f $R/fwd-2-16384-source-0.csv
ncu --import /tmp/fwd120.ncu-rep --page details > $R/fwd-2-16384-details.txt 2>&1; xz -T0 -f $R/fwd-2-16384-details.txt
pack; date
