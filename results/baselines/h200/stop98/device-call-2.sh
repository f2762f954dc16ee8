#!/bin/bash
# Stop 98's second GPU call: the stage barriers waited on by two roles now unaligned (barrier.sync), then
# synccheck and racecheck again over the one-kernel forwards (C = 64 bf16, gla, rwkv6, simple_gla), and the
# peer shapes' bf16 fwd and fwd+bwd at C = 64 with the per-kernel profile of the forwards (beside stop 94's
# H200 table of main's chunk kernels: the A/B of calls 2a/2b needs two bundles on one warm machine, which
# the lending did not give). Carry build-part-s98/new2.
cd build-part-s98/new2; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s98c4; mkdir -p $R
pack() { tar -cJf $OUT/s98-call4.tar.xz -C /tmp s98c4; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
date
for tool in synccheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 ./fb check --no-isolate --no-long \
    --filter '^(accuracy|shapes|state|decay)/(gla|rwkv6|simple_gla)/chunk/fwd/bf16/.*C64' --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json
done
pack
timeout 240 ./fb --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 \
  --min-time 0.2 --min-samples 5 --out $R/peer-c64.json > $R/peer-c64.log 2>&1
echo "peer run rc $?"; grep -E "^(gla|rwkv6|simple_gla)" $R/peer-c64.log | head -40
pack
timeout 90 ./fb profile --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/fwd/bf16/' --axis C=64 > $R/profile.log 2>&1
echo "profile rc $?"
xz -T0 -f $R/peer-c64.json
pack
date
