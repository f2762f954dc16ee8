#!/bin/bash
# Stop 102: ncu's SASS source page (stalls by line) of version 80's gradients kernel at 4,4096,16,128 (the binary
# call-v80.sh left in /tmp/v80), for where its 0.83 ms go.
set -u
R=/tmp/out-ncusrc; mkdir -p $R; cp "$0" $R/device-script.sh
export LD_LIBRARY_PATH=/tmp/v80/lib; fb=/tmp/v80/fb
timeout 150 ncu --set full --import-source yes -k "regex:scalar_grads_wgmma" --launch-count 1 -o /tmp/src80 $fb \
  --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j-src.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/src80.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/src80.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1; gzip -9f $R/source.csv
ncu --import /tmp/src80.ncu-rep --page raw --csv > $R/raw.csv 2>&1; gzip -9f $R/raw.csv
tar -cJf $OUT/ncusrc.tar.xz -C /tmp out-ncusrc; date
