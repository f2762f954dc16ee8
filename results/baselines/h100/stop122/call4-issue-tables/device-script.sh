#!/bin/bash
# Stop 122's fourth call: issues 3, 5 and 10's speed tables from version 122's build (f9e9a43, whose kernels
# main carries unchanged) on one H100, stop 100's commands (the last tables of record of these issues);
# issue 4's is the second call's. Tables made afterwards on the CPU: scripts/fused-peer-table.py (issue 3),
# scripts/chunk-peer-table.py (issue 5), scripts/gsa-gla-table.py (issue 10).
# Prediction: issue 3 36 of 40, issue 5 1 of 10, issue 10 6 of 30 fused cells over 2 (no kernel of theirs
# changed since stop 100 but the fused_recurrent forwards' version 98).
set -u
source scripts/device-call.sh build-part-s122/v122 issues || exit 2
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
$fb --version; date
O="--preset peer --min-time 0.2 --min-samples 5"
timeout 110 $fb --filter '^rwkv7/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue5-rwkv7-chunk.json > $R/issue5-rwkv7-chunk.log 2>&1; echo "issue5 rc $?"; tail -1 $R/issue5-rwkv7-chunk.log; pack; date
timeout 110 $fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' $O --out $R/issue3-fused.json > $R/issue3-fused.log 2>&1; echo "issue3 rc $?"; tail -1 $R/issue3-fused.log; pack; date
timeout 140 $fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "issue10 fused rc $?"; tail -1 $R/issue10-gsa-gla-fused.log; pack; date
timeout 70 $fb --filter '^gsa/chunk/(fwd|fwdbwd)/bf16' --axis C=32,64 $O --out $R/issue10-gsa-chunk.json > $R/issue10-gsa-chunk.log 2>&1; echo "issue10 chunk rc $?"; tail -1 $R/issue10-gsa-chunk.log
xz -T0 -f $R/*.json; pack; date
