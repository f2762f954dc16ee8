#!/bin/bash
# Stop 99 call C: main (/tmp/basefb) against the branch (/tmp/newfb): the bf16 forward batteries' errors side
# by side, two A/B rounds of the bf16 fwd and fwd+bwd at the peer shapes at C = 64, the per-kernel profile.
[ -x /tmp/basefb/fb ] && [ -x /tmp/newfb/fb ] || { echo "calls A/B's binaries are missing"; exit 1; }
export LD_LIBRARY_PATH=/tmp/newfb/lib
R=/tmp/s99c; mkdir -p $R
pack() { tar -cJf $OUT/s99-callC.tar.xz -C /tmp s99c; }
date
timeout 470 scripts/candidate.sh /tmp/basefb/fb /tmp/newfb/fb $R 2 '/(gla|rwkv6|simple_gla)/chunk/fwd/bf16/' base \
  --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' --axis C=64 --min-time 0.15 \
  --min-samples 5 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
pack
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'bf16|geomean' $R/ab-out.txt | head -40
timeout 60 /tmp/newfb/fb profile --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/fwd/bf16/' --axis C=64 > $R/profile.log 2>&1
echo "profile rc $?"; tail -n 30 $R/profile.log
pack
date
