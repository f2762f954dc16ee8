#!/bin/bash
# Prepared at stop 122, not run (no device time left): where gla's and rwkv6's bf16 forward now spends its
# time. At 1,24576,16,64 (version 123's split) the operands pass (operands_pass.cuh) took 236-259 us of
# 469-500 (h100/stop122/call5-v123/timeline.txt), more than its bytes (~0.42 GB: q, k, g in; A, the
# prepared rows and the decays out) at 3 TB/s (~0.14 ms). This call profiles the pass at 4,4096,16,64
# (whose forward, 0.281 ms, meets its target with little room) and 1,24576,16,64, the per-kernel times of
# both forwards, and ncu's full set with the SASS source page of the pass at 1,24576,16,64, to count what
# it is bound by before changing it.
# To run: build main slim (90-real, -compress-mode=none, tests off) and bundle it as build-part-s123/main
# (../shared/tools/bundle-for-device, fla-bench xz'd); move results/baselines aside; carry build-part-s123/main;
# `bash results/baselines/h100/stop122-prep/call-operands.sh` (a copy of this file in an untracked folder).
set -u
source scripts/device-call.sh build-part-s123/main operands || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 60 $fb profile --filter '^(gla|rwkv6)/chunk/fwd/bf16/(B4-T4096-H16-K64|B1-T24576-H16-K64)' --preset peer \
  --axis C=64 --min-time 0.1 --no-check --out $R/profile.json > $R/profile.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile.json
python3 scripts/timeline.py $R/profile.json.xz > $R/timeline.txt 2>&1; grep -E "launches|kernel" $R/timeline.txt
pack; date
timeout 120 ncu --set full --import-source yes -k "regex:chunk_operands_kernel" --launch-count 1 -o /tmp/operands \
  $fb --filter '^gla/chunk/fwd/bf16/' --axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64 \
  --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/operands.ncu-rep --page source --csv --print-source sass > $R/operands-source.csv 2>&1
gzip -9f $R/operands-source.csv
ncu --import /tmp/operands.ncu-rep --page details > $R/operands-details.txt 2>&1; xz -T0 -f $R/operands-details.txt
python3 scripts/ncu-source-regions.py $R/operands-source.csv.gz > $R/operands-regions.txt 2>&1; head -30 $R/operands-regions.txt
pack; date
