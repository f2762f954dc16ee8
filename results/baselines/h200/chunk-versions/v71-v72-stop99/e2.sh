#!/bin/bash
# Stop 99 call E2: the gated build (both one-kernel forwards only where their blocks fill more than half the
# SMs, version 72 at K = 64 alone, no segments) against main (/tmp/basefb, call a.sh): the three ops' whole
# chunk battery on the new build, racecheck split by kernel, the A/B of the bf16 forwards at C = 64. Carry
# build-part-s99/new.
[ -x /tmp/basefb/fb ] || { echo "call a.sh's /tmp/basefb/fb is missing"; exit 1; }
mkdir -p /tmp/newfb2; cp -r build-part-s99/new/lib /tmp/newfb2/
xz -T0 -dc build-part-s99/new/fla-bench.xz > /tmp/newfb2/fb; chmod +x /tmp/newfb2/fb
export LD_LIBRARY_PATH=/tmp/newfb2/lib; fb=/tmp/newfb2/fb
R=/tmp/s99e; mkdir -p $R
pack() { tar -cJf $OUT/s99e.tar.xz -C /tmp s99e; }
date
timeout 200 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/' --out $R/check-chunk.json > $R/check-chunk.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check-chunk.log; grep -E " FAILED| failed " $R/check-chunk.log | head -5
xz -T0 -f $R/check-chunk.json; pack
for op in gla simple_gla; do
  timeout 50 compute-sanitizer --tool racecheck --print-limit 4 $fb check --no-isolate --no-long \
    --filter "^(accuracy|shapes|decay)/$op/chunk/fwd/bf16/B[0-9]-T[0-9]+-H(16|48)-K64.*C64" --out $R/rc-$op.json > $R/racecheck-$op.log 2>&1
  echo "racecheck $op rc $?"; grep -E "cases:|SUMMARY" $R/racecheck-$op.log | head -2; rm -f $R/rc-$op.json
done
pack
timeout 200 scripts/candidate.sh /tmp/basefb/fb $fb $R 2 '/(gla|rwkv6|simple_gla)/chunk/fwd/bf16/.*C64' base \
  --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/fwd/bf16/|^simple_gla/chunk/fwdbwd/bf16/' --axis C=64 \
  --min-time 0.15 --min-samples 5 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'bf16|geomean|regression' $R/ab-out.txt | head -30
pack
date
