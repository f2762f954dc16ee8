#!/bin/bash
# Stop 107's second call: ncu of simple_gla's bf16 fused forward at 2,16384,16,128, C = 64, with two outputs
# warpgroups (version 97) and with one (96, FLA_AB_OUTPUT_GROUPS=1), after the first call's A/B found them the
# same (1.015-1.025 at that shape): what bounds the kernel at 32 values a block. Lands in $OUT/ncu97.tar.xz.
set -u
source scripts/device-call.sh build-part-s107/v97ab ncu97 || exit 2
for v in 97 96; do
  if [ $v = 96 ]; then export FLA_AB_OUTPUT_GROUPS=1; else unset FLA_AB_OUTPUT_GROUPS; fi
  timeout 150 ncu --set full --import-source yes -k "regex:scalar_fused_forward_kernel" --launch-count 1 \
    -o /tmp/f$v $fb --filter '^simple_gla/chunk/fwd/bf16/' --axis B=2 --axis T=16384 --axis H=16 --axis K=128 \
    --axis V=128 --axis C=64 --profile-once --no-check --out /tmp/j$v.json > $R/ncu-$v.log 2>&1
  echo "ncu $v rc $?"; ncu --import /tmp/f$v.ncu-rep --page details > $R/details-$v.txt 2>&1
  ncu --import /tmp/f$v.ncu-rep --page source --csv --print-source sass > $R/source-$v.csv 2>&1
  gzip -f $R/source-$v.csv; grep -E "Duration|Executed Ipc A|Registers Per|Achieved Occ" $R/details-$v.txt | head -6
  pack
done
