#!/bin/bash
# Stop 122's third call: the battery of gla's, rwkv6's and gsa's chunk variants on version 122's build
# (f9e9a43), which the second call's 110 s limit cut short (the new few-heads shapes run for every chunk
# variant), compared with main's 118 run of the same filter in that call (p2/check-base.json.xz).
# Prediction: bit for bit on every case both runs hold (the scan's arithmetic is unchanged).
set -u
source scripts/device-call.sh build-part-s122/v122 v122c || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version
F='/(gla|rwkv6)/chunk/|/gsa/chunk/.*/bf16/'
timeout 300 $fb check --no-long --filter "$F" --out $R/check-new.json > $R/check-new.log 2>&1
echo "check new rc $?"; grep -E "cases:" $R/check-new.log | tail -1; xz -T0 -f $R/check-new.json
python3 scripts/check-error-compare.py p2/check-base.json.xz $R/check-new.json.xz > $R/check-errors-new-vs-base.txt 2>&1
head -40 $R/check-errors-new-vs-base.txt; pack; date
