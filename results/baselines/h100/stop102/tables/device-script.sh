#!/bin/bash
# Stop 102: issue 4's table on the H100 with version 80 (the binary call-v80.sh left in /tmp/v80).
set -u
R=/tmp/out-table4; mkdir -p $R; cp "$0" $R/device-script.sh
export LD_LIBRARY_PATH=/tmp/v80/lib; fb=/tmp/v80/fb
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 400 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.2 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -5 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; tar -cJf $OUT/table4.tar.xz -C /tmp out-table4; date
