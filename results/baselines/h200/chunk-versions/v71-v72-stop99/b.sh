#!/bin/bash
# Stop 99 call B: the branch's fla-bench (02f9687) extracted to /tmp/newfb; synccheck and racecheck over the
# one-kernel forwards (C = 64 bf16). Carry build-part-s98/new2.
mkdir -p /tmp/newfb; cp -r build-part-s98/new2/lib /tmp/newfb/
xz -T0 -dc build-part-s98/new2/fla-bench.xz > /tmp/newfb/fb; chmod +x /tmp/newfb/fb
cd /tmp/newfb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s99b; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
date
for tool in synccheck racecheck; do
  timeout 130 compute-sanitizer --tool $tool --print-limit 10 ./fb check --no-isolate --no-long \
    --filter '^(accuracy|shapes|state|decay)/(gla|rwkv6|simple_gla)/chunk/fwd/bf16/.*C64' --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json
done
tar -cJf $OUT/s99-callB.tar.xz -C /tmp s99b
date
