#!/bin/bash
# Prepared at stop 123, not run: on an H100, on main's build at or after 02d3205: issue 4's table (version
# 124's; stop 122's fifth call is still the table of record); the per-kernel times of gla's and rwkv6's
# forward at 4,4096,16,64 and 1,24576,16,64 and ncu of their operands pass (stop 122's prepared call); ncu of
# simple_gla's wgmma gradients kernel at 1,24576,16,64 (454 of the fwd+bwd's 782 us after version 124; the
# target asks 608 for all of it) and of the reverse scan's runs there (110 us, bound per SM: chunk.md, stop
# 123). Each ncu step is device-call.sh's ncu_kernel.
# To run: as call-checks.sh, with ../shared/anchors/peer-fla-h100.md copied beside this script's copy.
set -u
source scripts/device-call.sh build-part-s124/main table-profiles || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
issue4_table "$(dirname "$0")/peer-fla-h100.md" 100
grep -E "1,24576|met:" $R/issue4-chunk-peer-table.md; date
timeout 60 $fb profile --filter '^(gla|rwkv6)/chunk/fwd/bf16/(B4-T4096-H16-K64|B1-T24576-H16-K64)' --preset peer \
  --axis C=64 --min-time 0.1 --no-check --out $R/profile.json > $R/profile.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile.json
python3 scripts/timeline.py $R/profile.json.xz > $R/timeline.txt 2>&1; grep -E "launches|operands" $R/timeline.txt
pack; date
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel operands chunk_operands_kernel 100 --filter '^gla/chunk/fwd/bf16/' "${one_shape[@]}"
ncu_kernel grads scalar_grads_wgmma_kernel 120 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
NCU_SKIP=1 ncu_kernel scan chunk_scan_kernel 120 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
date
