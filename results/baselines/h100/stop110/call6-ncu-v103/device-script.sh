#!/bin/bash
# Stop 110's sixth call: ncu (full set, SASS source) of version 103's simple_gla bf16 fwd+bwd at 4,4096,16,64,
# C = 64 (main at 8e4c2f4; the bundle is v103-ab's build, no switch set): the forward, dq's, dk's and dv's
# passes and the gate scan, for where dq's and dk's passes spend their time over the forward's (the next
# stop's plan). Lands in $OUT/ncu103.tar.xz.
set -u
source scripts/device-call.sh build-part-s110/v103f ncu103 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 200 ncu --set full --import-source yes -k "regex:scalar_(fused_forward|gate_grads)" --launch-count 5 \
  -o /tmp/ncu103 $fb --filter '^simple_gla/chunk/fwdbwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 \
  --axis K=64 --axis V=64 --axis C=64 --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -3 $R/ncu.log
ncu --import /tmp/ncu103.ncu-rep --page details > $R/details.txt 2>&1; xz -T0 -f $R/details.txt
for i in 0 1 2 3 4; do
  ncu --import /tmp/ncu103.ncu-rep --page source --csv --print-source sass --launch-skip $i --launch-count 1 \
    > $R/source-$i.csv 2>&1; gzip -9f $R/source-$i.csv
done
ncu --import /tmp/ncu103.ncu-rep --page raw --csv > $R/raw.csv 2>&1; gzip -9f $R/raw.csv
ls -la $R; pack; date
