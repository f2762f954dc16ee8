#!/bin/bash
# Stop 105's table of record: issue 4's table from main at version 94 (build-part-s105/v94, no switches), one
# H100, after the battery over gla's and rwkv6's bf16 chunk forwards at C = 64 (the K = 64 forwards alone now
# on the prepared path). Lands in $OUT/v94.tar.xz, packed after each step.
set -u
dir=/tmp/v94; mkdir -p $dir; cp -r build-part-s105/v94/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s105/v94/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v94; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/v94.tar.xz -C /tmp out-v94; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 30 $fb check --no-long --filter '/(gla|rwkv6)/chunk/fwd/bf16/.*C64' --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
[ $rc -eq 0 ] || { grep -iE "fail" $R/check.log | head; exit 0; }
timeout 120 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json 2>/dev/null; pack; date
