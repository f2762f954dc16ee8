#!/bin/bash
# Chunk version 71, call 2b (prepared at stop 97): against main's build (9187731's kernels, extracted by call
# 2a into build-part-s97/base), simple_gla's chunk battery bit-compared where only the old paths run and its
# errors beside the new kernel's, two A/B rounds of the bf16 fwd and fwd+bwd at the peer shapes at C = 64, and
# the per-kernel profile. Carry build-part-s97/new (call 2a's extracted base stays on the warm machine).
cd build-part-s97/new; xz -dc fla-bench.xz > fb; chmod +x fb
[ -x ../base/fb ] || { echo "call 2a's ../base/fb is missing (the machine was given back?)"; exit 1; }
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v71b; mkdir -p $R
pack() { tar -cJf $OUT/v71-call2.tar.xz -C /tmp v71b; }
date
timeout 480 ../../scripts/candidate.sh ../base/fb ./fb $R 2 '/simple_gla/chunk/' base --preset peer \
  --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' --axis C=64 --min-time 0.15 --min-samples 5 --no-check \
  > $R/candidate.log 2>&1; echo "candidate rc $?"
pack
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'bf16|geomean' $R/ab-out.txt | head -20
timeout 90 ./fb profile --preset peer --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' --axis C=64 > $R/profile.log 2>&1
echo "profile rc $?"; tail -n 20 $R/profile.log
pack
date
