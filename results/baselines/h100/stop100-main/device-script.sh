#!/bin/bash
# Stop 100 call 3 (main at e077a3f, /tmp/mainfb from call 1 or carried build-part-s100/main): every open
# issue's speed table from one build on one H100 (the issues name it; stop 81's were the last of record).
if [ ! -x /tmp/mainfb/fb ]; then mkdir -p /tmp/mainfb; cp -r build-part-s100/main/lib /tmp/mainfb/
  xz -T0 -dc build-part-s100/main/fla-bench.xz > /tmp/mainfb/fb; chmod +x /tmp/mainfb/fb; fi
export LD_LIBRARY_PATH=/tmp/mainfb/lib; fb=/tmp/mainfb/fb
R=/tmp/s100c; mkdir -p $R; cp s100/call3.sh $R/device-script.sh
pack() { tar -cJf $OUT/s100c.tar.xz -C /tmp s100c; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt; date
O="--preset peer --min-time 0.2 --min-samples 5"
timeout 170 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "issue4 rc $?"; pack; date
timeout 100 $fb --filter '^rwkv7/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 $O --out $R/issue5-rwkv7-chunk.json > $R/issue5-rwkv7-chunk.log 2>&1; echo "issue5 rc $?"; pack; date
timeout 100 $fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' $O --out $R/issue3-fused.json > $R/issue3-fused.log 2>&1; echo "issue3 rc $?"; pack; date
timeout 120 $fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' $O --out $R/issue10-gsa-gla-fused.json > $R/issue10-gsa-gla-fused.log 2>&1; echo "issue10 fused rc $?"; pack
timeout 60 $fb --filter '^gsa/chunk/(fwd|fwdbwd)/bf16' --axis C=32,64 $O --out $R/issue10-gsa-chunk.json > $R/issue10-gsa-chunk.log 2>&1; echo "issue10 chunk rc $?"
pack; date
