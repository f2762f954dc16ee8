#!/bin/bash
# Prepared at stop 123, not run (the session's device time went to failed starts): the checks version 124
# (chunk.md) did not get, on main's build at or after 02d3205 (any H100 or H200):
#  - memcheck, racecheck and synccheck over the reverse scan's runs (the battery's few-heads simple_gla
#    fwd+bwd shapes at C = 64, typical and near-zero decays);
#  - the battery's new near-zero cases at the sequence segments' shapes (suites/battery_cases.cpp,
#    `near_zero_segments`) for every chunked variant, dtype and chunk size: stop 123 ran them in bf16 at
#    C = 64 only (simple_gla's every C; 16 of the other ops' cases ok).
# To run: build main slim (90-real, -compress-mode=none, tests off), bundle it as build-part-s124/main
# (../shared/tools/bundle-for-device, fla-bench xz'd); move results/baselines aside; carry build-part-s124/main;
# `bash p1/call-checks.sh` (a copy of this file in an untracked folder).
set -u
source scripts/device-call.sh build-part-s124/main checks || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
sanitizers runs '^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64' 60
date
battery near-zero-segments 'near_zero_segments' "" 300
grep -E "FAIL|failed" $R/near-zero-segments.log | head -20; date
