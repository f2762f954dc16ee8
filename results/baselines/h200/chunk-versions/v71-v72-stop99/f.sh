#!/bin/bash
# Stop 99 call F: version 72 with a loaders' barrier after the tables' stores (prepare_chunk's end): does
# racecheck then see the ring's order? racecheck over gla's and rwkv6's K = 64 forward cases at C = 64, then
# the K = 64 peer forwards (beside call E2's). Carry build-part-s99/exp.
mkdir -p /tmp/expfb; cp -r build-part-s99/exp/lib /tmp/expfb/
xz -T0 -dc build-part-s99/exp/fla-bench.xz > /tmp/expfb/fb; chmod +x /tmp/expfb/fb
export LD_LIBRARY_PATH=/tmp/expfb/lib; fb=/tmp/expfb/fb
R=/tmp/s99f; mkdir -p $R
date
for op in gla rwkv6; do
  timeout 60 compute-sanitizer --tool racecheck --print-limit 4 $fb check --no-isolate --no-long \
    --filter "^(accuracy|shapes|decay|state)/$op/chunk/fwd/bf16/B[0-9]-T[0-9]+-H(16|48)-K64.*C64" --out $R/rc-$op.json > $R/racecheck-$op.log 2>&1
  echo "racecheck $op rc $?"; grep -E "cases:|SUMMARY" $R/racecheck-$op.log | head -2; rm -f $R/rc-$op.json
done
timeout 100 $fb --preset peer --filter '^(gla|rwkv6)/chunk/fwd/bf16/.*K64' --axis C=64 --min-time 0.15 --min-samples 5 \
  --no-check --out $R/peer-k64.json > $R/peer-k64.log 2>&1; echo "peer rc $?"; grep -E "^(gla|rwkv6)" $R/peer-k64.log | head
tar -cJf $OUT/s99f.tar.xz -C /tmp s99f
date
