#!/bin/bash
# Stop 100 call 1 on the H200 (carry build-part-s100/main, main at e077a3f): memcheck of the 48- and 16-head
# chunk-forward cases the one-kernel forwards take; leaves main's binary in /tmp/mainfb for call 2's A/B.
mkdir -p /tmp/mainfb; cp -r build-part-s100/main/lib /tmp/mainfb/
xz -T0 -dc build-part-s100/main/fla-bench.xz > /tmp/mainfb/fb; chmod +x /tmp/mainfb/fb
export LD_LIBRARY_PATH=/tmp/mainfb/lib; fb=/tmp/mainfb/fb
R=/tmp/s100a; mkdir -p $R; cp s100/call1h.sh $R/device-script.sh
pack() { tar -cJf $OUT/s100a.tar.xz -C /tmp s100a; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64' --out $R/mc.json > $R/memcheck.log 2>&1
echo "memcheck rc $?"; grep -E "cases:|SUMMARY" $R/memcheck.log | head -3; xz -T0 -f $R/mc.json
pack; date
