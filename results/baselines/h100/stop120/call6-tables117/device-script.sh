#!/bin/bash
# Stop 120's sixth call: the other open issues' tables (3, 5 and 10) from main's build at version 117
# (c32dc38, the slim bundle of call 4), with the commands of stop 100's tables (h100/stop100-main/), the last
# time all of them were run on an H100. No prediction: a status, not a candidate (chunk versions 73-117 and
# fused_recurrent 98 since; issue 3's gla/rwkv6/simple_gla fwd+bwd run the chunk-form backward).
# To run: move results/baselines aside, copy ../shared/anchors/peer-fla-h100.md to p6/, carry
# build-part-s120/v117, `bash p6/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v117 tables117 || exit 2
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cat $R/gpu.txt; $fb --version; date
O="--preset peer --min-time 0.2 --min-samples 5"
timeout 100 $fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' $O \
  --out $R/issue3-fused.json > $R/issue3-fused.log 2>&1; echo "issue3 rc $?"; xz -T0 -f $R/issue3-fused.json
python3 scripts/fused-peer-table.py $R/issue3-fused.json.xz p6/peer-fla-h100.md > $R/issue3-fused-peer-table.md 2>&1
tail -1 $R/issue3-fused-peer-table.md; pack; date
timeout 120 $fb --filter '^rwkv7/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue5-rwkv7-chunk.json \
  > $R/issue5-rwkv7-chunk.log 2>&1; echo "issue5 rc $?"; xz -T0 -f $R/issue5-rwkv7-chunk.json
python3 scripts/chunk-peer-table.py $R/issue5-rwkv7-chunk.json.xz p6/peer-fla-h100.md \
  > $R/issue5-rwkv7-chunk-peer-table.md 2>&1
tail -1 $R/issue5-rwkv7-chunk-peer-table.md; pack; date
timeout 120 $fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json \
  > $R/issue10-gsa-gla-fused.log 2>&1; echo "issue10 fused rc $?"; xz -T0 -f $R/issue10-gsa-gla-fused.json
python3 scripts/gsa-gla-table.py $R/issue10-gsa-gla-fused.json.xz > $R/issue10-gsa-gla-table.md 2>&1
tail -1 $R/issue10-gsa-gla-table.md; pack
timeout 80 $fb --filter '^gsa/chunk/(fwd|fwdbwd)/bf16' --axis C=32,64 $O --out $R/issue10-gsa-chunk.json \
  > $R/issue10-gsa-chunk.log 2>&1; echo "issue10 chunk rc $?"; xz -T0 -f $R/issue10-gsa-chunk.json; pack; date
