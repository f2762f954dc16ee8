#!/bin/bash
# The wgmma branch, call 2b (prepared at stop 98): against main's build (extracted by call 2a into
# build-part-s98/base), the forward batteries' errors beside main's (versions 71 and 72 are not bit for bit),
# two A/B rounds of gla's, rwkv6's and simple_gla's bf16 fwd and fwd+bwd at the peer shapes at C = 64, and the
# per-kernel profile. Carry build-part-s98/new (call 2a's extracted base stays on the warm machine).
cd build-part-s98/new; xz -dc fla-bench.xz > fb; chmod +x fb
[ -x ../base/fb ] || { echo "call 2a's ../base/fb is missing (the machine was given back?)"; exit 1; }
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s98c2; mkdir -p $R
pack() { tar -cJf $OUT/s98-call2.tar.xz -C /tmp s98c2; }
date
timeout 500 ../../scripts/candidate.sh ../base/fb ./fb $R 2 '/(gla|rwkv6|simple_gla)/chunk/fwd/bf16/' base \
  --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' --axis C=64 --min-time 0.15 \
  --min-samples 5 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
pack
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'bf16|geomean' $R/ab-out.txt | head -32
timeout 60 ./fb profile --preset peer --filter '^(gla|rwkv6|simple_gla)/chunk/fwd/bf16/' --axis C=64 > $R/profile.log 2>&1
echo "profile rc $?"; tail -n 24 $R/profile.log
pack
date
