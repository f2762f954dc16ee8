#!/bin/bash
# Stop 124, call A (an H100), on main (version 124): issue 4's table; simple_gla's fwd+bwd timelines at
# 8,1024,8,64 (0.110 ms against 0.106, the nearest unmet cell) and 1,24576,16,64; ncu of its wgmma gradients
# kernel at 1,24576,16,64 (454 of 782 us: where a chunk's ~10 us an SM goes); memcheck, racecheck and
# synccheck over version 124's reverse scan in runs (stop123-prep/call-checks.sh).
set -u
source scripts/device-call.sh build-part-s124/main table-sg || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
issue4_table "$(dirname "$0")/peer-fla-h100.md" 100
grep -E "1,24576|8,1024|met:" $R/issue4-chunk-peer-table.md; date
timeout 40 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/(B8-T1024|B1-T24576)' --preset peer --axis C=64 \
  --min-time 0.1 --no-check --out $R/profile-sg.json > $R/profile-sg.log 2>&1
echo "profile sg rc $?"; xz -T0 -f $R/profile-sg.json
python3 scripts/timeline.py $R/profile-sg.json.xz > $R/timeline-sg.txt 2>&1; cat $R/timeline-sg.txt | head -40; pack
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel grads scalar_grads_wgmma_kernel 120 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
date
sanitizers runs '^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64' 60
date
